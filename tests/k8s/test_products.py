"""Product labels as device plugins and clouds write them, mapped to the accelerator catalog."""

import pytest

from fedopt.k8s.products import DEFAULT_PRODUCT_LABEL, RESOURCE_OF_VENDOR, is_card_resource, match_product, product_of_node
from fedopt.normalize.catalog import load_catalog

CATALOG = load_catalog()


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB"),
        ("NVIDIA-H100-SXM5-80GB", "H100-SXM-80GB"),
        ("NVIDIA-H100-PCIe", "H100-PCIe-80GB"),
        ("nvidia-h100-80gb", "H100-SXM-80GB"),  # GKE
        ("NVIDIA-H200", "H200-SXM-141GB"),
        ("NVIDIA-H20", "H20-96GB"),
        ("NVIDIA-H800", "H800-SXM-80GB"),
        ("NVIDIA-A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("NVIDIA-A100-SXM4-40GB", "A100-SXM4-40GB"),
        ("NVIDIA-A100-80GB-PCIe", "A100-PCIe-80GB"),
        ("NVIDIA-A800-SXM4-80GB", "A800-SXM4-80GB"),
        ("NVIDIA-A10", "A10"),
        ("NVIDIA-A10G", "A10G"),
        ("NVIDIA-L4", "L4"),
        ("NVIDIA-L40S", "L40S"),
        ("NVIDIA-L40", "L40"),
        ("Tesla-T4", "T4"),
        ("nvidia-tesla-t4", "T4"),  # GKE
        ("Tesla-V100-SXM2-32GB", "V100-SXM2-32GB"),
        ("Tesla-V100-PCIE-16GB", "V100-PCIe-16GB"),
        ("NVIDIA-B200", "B200-SXM-180GB"),
        ("AMD_Instinct_MI300X_OAM", "MI300X"),
        ("74a1", "MI300X"),
        ("74a5", "MI325X"),  # the labeller's device ids, as AMD's guide lists them
        ("0x75a3", "MI355X"),
        ("Ascend910B", "Ascend-910B"),
        ("910B3", "Ascend-910B"),
        ("module-910b-8", "Ascend-910B"),
        ("H100", "H100-SXM-80GB"),  # the catalog's own aliases
        ("Ascend-910B", "Ascend-910B"),
        # through normalize's card-name resolver since 2026-12-04: the PCIe / NVL parts were read as
        # the SXM ones before, the rest as unknown products
        ("NVIDIA-H200-NVL", "H200-NVL-141GB"),
        ("NVIDIA-H800-PCIe", "H800-PCIe-80GB"),
        ("NVIDIA-A800-80GB-PCIe", "A800-PCIe-80GB"),
        ("NVIDIA-RTX-6000-Ada-Generation", "RTX-6000-Ada"),
        ("NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition", "RTX-PRO-6000-Blackwell"),
        ("NVIDIA-GH200-480GB", "GH200-96GB"),  # Grace's 480 GB beside 96 GB of HBM3
        ("NVIDIA-B300-SXM6-AC", "B300-SXM-288GB"),
        ("NVIDIA-GeForce-RTX-4090", "RTX-4090"),
        ("AMD_Instinct_MI325X", "MI325X"),
        ("HL-325L", "Gaudi3"),
        ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "A100-SXM4-40GB"),  # a MIG product: the card it is cut from
        ("NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", "H100-SXM-80GB"),
        ("nvidia-tesla-a100", "A100-SXM4-40GB"),  # GKE: the 40 GB card, not the bare alias's 80 GB
        ("nvidia-a100-80gb", "A100-SXM4-80GB"),
    ],
)
def test_product_labels_map_to_the_catalog(label, expected):
    assert match_product(label, CATALOG) == expected


@pytest.mark.parametrize(
    "label",
    # the Ascend plugin's resource name covers 910 and 910B; a laptop part has no specs
    ["ACME-Z9000", "NVIDIA-Quadro-Z1", "", "  ", "huawei-Ascend910", "Ascend910", "NVIDIA-GeForce-RTX-4090-Laptop-GPU"],
)
def test_unknown_products_are_not_guessed(label):
    assert match_product(label, CATALOG) is None


def test_node_product_reads_the_resource_s_labels_in_order():
    ascend = {"accelerator": "huawei-Ascend910", "accelerator-type": "module-910b-8"}
    m = product_of_node(ascend, "huawei.com/Ascend910", CATALOG)
    assert (m.catalog_id, m.label, m.value) == ("Ascend-910B", "accelerator-type", "module-910b-8")
    # the resource name itself names the chip (HAMi style)
    assert product_of_node({}, "huawei.com/Ascend910B", CATALOG).catalog_id == "Ascend-910B"
    # overrides win, and name the label they matched
    m = product_of_node({"nvidia.com/gpu.product": "ACME-Z9000"}, "nvidia.com/gpu", CATALOG, {"ACME-Z9000": "L40"})
    assert (m.catalog_id, m.label) == ("L40", "nvidia.com/gpu.product")
    unknown = product_of_node({"nvidia.com/gpu.product": "ACME-Z9000"}, "nvidia.com/gpu", CATALOG)
    assert (unknown.catalog_id, unknown.value) == (None, "ACME-Z9000")
    assert product_of_node({"kubernetes.io/os": "linux"}, "nvidia.com/gpu", CATALOG).value is None


def test_a_node_without_a_product_label_is_read_by_its_cloud_instance_type():
    eks = {"node.kubernetes.io/instance-type": "p4d.24xlarge", "kubernetes.io/os": "linux"}
    m = product_of_node(eks, "nvidia.com/gpu", CATALOG)
    assert (m.catalog_id, m.label, m.value) == ("A100-SXM4-40GB", "node.kubernetes.io/instance-type", "p4d.24xlarge")
    azure = {"beta.kubernetes.io/instance-type": "Standard_ND96isr_MI300X_v5"}
    assert product_of_node(azure, "amd.com/gpu", CATALOG).catalog_id == "MI300X"
    # a product label wins; an unknown product is still reported, unless the instance type knows the card
    labelled = eks | {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}
    assert product_of_node(labelled, "nvidia.com/gpu", CATALOG).catalog_id == "A100-SXM4-80GB"
    odd = eks | {"nvidia.com/gpu.product": "ACME-Z9000"}
    assert product_of_node(odd, "nvidia.com/gpu", CATALOG).catalog_id == "A100-SXM4-40GB"
    # an instance type the table lacks (GCP N1 with attached GPUs) or of another vendor names nothing:
    # the fleet file's cluster card type still applies
    assert product_of_node({"node.kubernetes.io/instance-type": "n1-standard-8"}, "nvidia.com/gpu", CATALOG).value is None
    assert product_of_node(eks, "amd.com/gpu", CATALOG).value is None


def test_card_resources():
    assert all(map(is_card_resource, ["nvidia.com/gpu", "amd.com/gpu", "huawei.com/Ascend910", "huawei.com/Ascend910B"]))
    assert not any(map(is_card_resource, ["cpu", "nvidia.com/mig-1g.10gb", "nvidia.com/gpu.shared", "hugepages-2Mi"]))


def test_an_mi250x_node_counts_graphics_compute_dies():
    """ROCm lists each of an MI250X's two dies as a GPU, so an amd.com/gpu card is half a package:
    64 GB and half its peaks, not the package's 128 GB (a node of four MI250X reports eight)."""
    m = product_of_node({"amd.com/gpu.product-name": "AMD_Instinct_MI250X"}, "amd.com/gpu", CATALOG)
    assert m.catalog_id == "MI250X-GCD"
    die, package = CATALOG["MI250X-GCD"], CATALOG["MI250X"]
    assert die["memory_gb"] * 2 == package["memory_gb"] == 128
    assert die["bf16_tflops"] * 2 == package["bf16_tflops"] and die["mem_bw_gbs"] * 2 == package["mem_bw_gbs"]
    assert match_product("AMD Instinct MI250X", CATALOG) == "MI250X"  # a package where a name says so (benchmarks)


def test_ascend_nodes_by_chip_label_and_server():
    """MindCluster labels a node with its chip (910B1-B4, 910B2C); an Atlas A2 server carries 910Bs, not
    NVIDIA's A2; an Atlas A3 NPU (or a node labelled 910C) is one die of a 910C package: half of it."""
    chip = "node.kubernetes.io/npu.chip.name"
    for label in ("910B2C", "910B3", "Ascend910B4"):
        assert product_of_node({chip: label}, "huawei.com/Ascend910", CATALOG).catalog_id == "Ascend-910B", label
    for name in ("Atlas 800I A2", "Atlas-800T-A2", "Atlas 300T A2"):
        assert match_product(name, CATALOG) == "Ascend-910B", name
    assert match_product("Atlas 200I A2", CATALOG) is None  # an Ascend 310B edge module: no specs
    for name in ("Atlas 800T A3", "Atlas 800I A3", "Ascend910_9391"):
        assert match_product(name, CATALOG) == "Ascend-910C-die", name
    assert product_of_node({chip: "910C"}, "huawei.com/Ascend910", CATALOG).catalog_id == "Ascend-910C-die"
    die, package = CATALOG["Ascend-910C-die"], CATALOG["Ascend-910C"]
    assert (die["memory_gb"] * 2, die["bf16_tflops"] * 2, die["mem_bw_gbs"] * 2) == (
        package["memory_gb"],
        package["bf16_tflops"],
        package["mem_bw_gbs"],
    )


def test_alibaba_ack_nodes_name_their_gpu():
    """Alibaba Cloud's ACK labels a GPU node aliyun.accelerator/nvidia_name (no GPU feature discovery there)."""
    key = "aliyun.accelerator/nvidia_name"
    for value, card in (("NVIDIA-A10", "A10"), ("Tesla-V100-SXM2-16GB", "V100-SXM2-16GB"), ("NVIDIA-H20", "H20-96GB")):
        m = product_of_node({key: value}, "nvidia.com/gpu", CATALOG)
        assert (m.catalog_id, m.label) == (card, key), value
    vke = "machine.cluster.vke.volcengine.com/gpu-name"  # Volcano Engine's
    assert product_of_node({vke: "NVIDIA-L20"}, "nvidia.com/gpu", CATALOG).catalog_id == "L20"


def test_exported_product_labels_read_back_as_their_cards():
    """Every label an export writes for a catalog card (a Kueue flavour's nodeLabels) names that card when
    the importer reads it back: the two directions agree."""
    for cid, (key, value) in DEFAULT_PRODUCT_LABEL.items():
        resource = RESOURCE_OF_VENDOR[CATALOG[cid]["vendor"]]
        assert product_of_node({key: value}, resource, CATALOG).catalog_id == cid, cid
