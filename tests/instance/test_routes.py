"""Routes: least latency, then fewer hops, then the smaller id sequence (spec section 1)."""

from fedopt.instance.routes import compute_routes


def _route(ids, links, s, t):
    r = compute_routes(ids, [(ids.index(a), ids.index(b), lat) for a, b, lat in links], [0.0] * len(links))
    return [ids[i] for i in r.paths[ids.index(s)][ids.index(t)]]


def test_least_latency_wins_over_hops():
    links = [("a", "b", 10), ("b", "c", 10), ("a", "c", 25)]
    assert _route(["a", "b", "c"], links, "a", "c") == ["a", "b", "c"]


def test_tie_on_latency_fewer_hops():
    links = [("a", "b", 10), ("b", "c", 10), ("a", "c", 20)]
    assert _route(["a", "b", "c"], links, "a", "c") == ["a", "c"]


def test_tie_on_latency_and_hops_smaller_sequence():
    links = [("s", "y", 5), ("y", "t", 5), ("s", "x", 5), ("x", "t", 5)]
    assert _route(["s", "y", "x", "t"], links, "s", "t") == ["s", "x", "t"]


def test_decimal_latencies_tie_exactly():
    # 0.1 + 0.2 equals 0.3 as a person reads it: a tie, so the fewer hops win
    links = [("a", "b", 0.1), ("b", "c", 0.2), ("a", "c", 0.3)]
    assert _route(["a", "b", "c"], links, "a", "c") == ["a", "c"]


def test_egress_is_sum_of_links_and_unreachable():
    r = compute_routes(["a", "b", "c", "d"], [(0, 1, 1.0), (1, 2, 1.0)], [0.02, 0.01])
    assert r.egress_per_gb[0, 2] == 0.03
    assert not r.reachable[0, 3]
    assert r.links[2][0] == (1, 0)
