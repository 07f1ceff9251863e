"""The ``--cards`` file: what the loader takes, what it fills from the catalog twin, and its schema."""

from __future__ import annotations

import json

import pytest

from fedopt.errors import InputError
from fedopt.normalize.cards import CardResolver
from fedopt.normalize.cards_file import load_cards_file


def test_cards_file(tmp_path):
    p = tmp_path / "cards.json"
    p.write_text(
        json.dumps([{"id": "H100", "vendor": "nvidia", "stack": "cuda", "memory_gb": 80, "bf16_tflops": 989, "mem_bw_gbs": 3350}])
    )
    (card,) = load_cards_file(p)
    assert card.fp32_tflops == 67  # from the catalog twin
    assert card.power_w == 700  # the H100 SXM's board power, so its clocks read as the twin's


def test_a_users_power_limited_card_reads_as_its_twin(tmp_path):
    # an "L4" in the CardType form without power_w: the catalog L4's 72 W, so the model charges it the
    # same sustained-clock deficit; a power given wins, and a card with no twin has none
    res = CardResolver()
    l4 = res.resolve("L4")
    base = {"vendor": "nvidia", "stack": "cuda", "memory_gb": 24, "bf16_tflops": l4.bf16_tflops, "mem_bw_gbs": 300}
    p = tmp_path / "cards.json"
    p.write_text(json.dumps([base | {"id": "L4"}, base | {"id": "NVIDIA L4", "power_w": 150}, base | {"id": "card-9"}]))
    twin, given, alone = load_cards_file(p)
    assert twin.power_w == l4.power_w == 72
    assert res.power_deficit(twin) == pytest.approx(res.power_deficit(l4)) and res.power_deficit(l4) > 0
    assert given.power_w == 150 and res.power_deficit(given) < res.power_deficit(l4)
    assert alone.power_w is None and res.power_deficit(alone) == 0


def test_cards_file_narrow_peaks_from_the_twin(tmp_path):
    p = tmp_path / "cards.json"
    base = {"vendor": "nvidia", "stack": "cuda", "memory_gb": 180, "mem_bw_gbs": 8000}
    p.write_text(
        json.dumps([base | {"id": "B200", "bf16_tflops": 2100}, base | {"id": "B200 x", "bf16_tflops": 2250, "fp4_tflops": 7000}])
    )
    low, own = load_cards_file(p)
    assert (low.fp8_tflops, low.fp4_tflops) == (pytest.approx(4200), pytest.approx(8400))  # the twin's ratios to BF16
    assert (own.fp8_tflops, own.fp4_tflops) == (4500, 7000)  # a figure given wins
    p.write_text(json.dumps([base | {"id": "X", "bf16_tflops": 10, "fp8_tflops": "fast"}]))
    with pytest.raises(InputError) as err:
        load_cards_file(p)
    assert "[0].fp8_tflops" in str(err.value)


@pytest.mark.parametrize(
    "doc",
    [
        [{"id": "X1", "bf16_tflops": 100, "mem_bw_gbs": 900}],
        [{"id": "X1", "bf16_tflops": 100.5, "mem_bw_gbs": 900, "memory_gb": 48, "power_w": None, "vendor": "acme", "price": 2}],
        {"card_types": [{"id": "H100", "stack": "cuda", "memory_gb": 80, "bf16_tflops": 989, "mem_bw_gbs": 3350}]},
        [],
        [{"id": "", "bf16_tflops": 1, "mem_bw_gbs": 1}],
        [{"bf16_tflops": 1, "mem_bw_gbs": 1}],
        [{"id": "X1", "bf16_tflops": 0, "mem_bw_gbs": 1}],
        [{"id": "X1", "bf16_tflops": 1}],
        [{"id": "X1", "bf16_tflops": 1, "mem_bw_gbs": 1, "memory_gb": -1}],
        [{"id": "X1", "bf16_tflops": True, "mem_bw_gbs": 1}],
        [{"id": "X1", "bf16_tflops": "100", "mem_bw_gbs": 1}],
        [{"id": "X1", "bf16_tflops": 1, "mem_bw_gbs": 1, "stack": 3}],
        [{"id": 7, "bf16_tflops": 1, "mem_bw_gbs": 1}],
        ["X1"],
        {"cards": []},
        {"card_types": {"id": "X1"}},
    ],
)
def test_the_cards_schema_accepts_what_the_loader_accepts(tmp_path, doc):
    """``fedopt schema --cards`` and ``load_cards_file`` agree on every document here, good and bad."""
    import jsonschema

    from fedopt.normalize.cards_file import cards_file_schema

    path = tmp_path / "cards.json"
    path.write_text(json.dumps(doc))
    try:
        load_cards_file(path)
        loads = True
    except InputError:
        loads = False
    valid = jsonschema.Draft202012Validator(cards_file_schema()).is_valid(doc)
    assert valid == loads


def test_schema_command_prints_the_cards_schema(capsys):
    from fedopt.cli import main

    assert main(["schema", "--cards"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "fedopt normalize --cards file" and schema["$defs"]["card"]["required"] == [
        "id",
        "bf16_tflops",
        "mem_bw_gbs",
    ]
    assert main(["schema", "--cards", "--plan"]) == 2
