import pytest

from tests.k8s.roundtrip import build, crds_or_skip


@pytest.fixture(scope="session")
def roundtrip(tmp_path_factory):
    return build(tmp_path_factory.mktemp("roundtrip"))


@pytest.fixture(scope="session")
def schemas():
    from fedopt.export.validate import Schemas

    return Schemas(crds_or_skip())
