"""CPU facts: every catalog CPU family has a sourced row; this machine's facts come from /proc/cpuinfo."""

from __future__ import annotations

from pricing.catalog import cpu_facts_by_family, load_cpu_specs, load_snapshot, local_cpu_facts

SPR = """processor	: 0
model name	: Intel(R) Xeon(R) Platinum 8488C
cpu MHz		: 2400.000
flags		: fpu sse sse2 avx avx2 fma avx512f avx512bw avx512_bf16 amx_bf16 amx_tile
"""
GRAVITON = """processor	: 0
BogoMIPS	: 2100.00
Features	: fp asimd evtstrm aes sve bf16 svebf16
"""


def test_every_catalog_cpu_family_has_a_sourced_row():
    specs = load_cpu_specs()
    snap = load_snapshot()
    families = {t.split(".")[0] for t in snap.loc[snap["gpu_count"] == 0, "instance_type"]}
    assert families <= set(specs["family"])
    assert specs["source"].str.len().gt(40).all()
    facts = cpu_facts_by_family()
    assert facts["c7i"].amx and not facts["c6i"].bf16 and facts["c8g"].vector_bits == 128
    assert (
        "c7a" not in facts
    )  # its clock is not sourced: predicted at this machine's per-core speed


def test_local_facts_from_cpuinfo():
    spr = local_cpu_facts(SPR)
    assert (spr.clock_ghz, spr.vector_bits, spr.bf16, spr.amx) == (2.4, 512, True, True)
    assert local_cpu_facts(GRAVITON) is None  # no clock in this cpuinfo: facts unknown, not guessed
    assert local_cpu_facts("") is None
