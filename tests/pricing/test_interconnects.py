"""Interconnect facts: every multi-GPU catalog instance has a sourced, dated row that agrees with the catalog."""

from __future__ import annotations

from pricing.catalog import interconnects_by_type, load_interconnects, load_snapshot

# Multi-GPU types the bundled snapshot gained with every GPU size (2026-11-24) whose interconnect is not
# sourced yet: predicted on one of their GPUs only (predicted.gpu_plans), never on a guessed fabric.
NOT_SOURCED = {
    "g4dn.metal",
    "g5.24xlarge",
    "g6.24xlarge",
    "g6.48xlarge",
    "g6e.24xlarge",
    "g6e.48xlarge",
    "p3dn.24xlarge",
    "p4de.24xlarge",
    "p5e.48xlarge",
    "p5en.48xlarge",
}


def test_every_multi_gpu_catalog_instance_has_a_sourced_row_or_is_a_known_gap():
    rows = load_interconnects()
    snap = load_snapshot()
    multi = (
        snap[snap["gpu_count"] > 1]
        .drop_duplicates("instance_type")
        .set_index("instance_type")["gpu_count"]
    )
    by_type = rows.set_index("instance_type")
    assert set(multi.index) - set(by_type.index) == NOT_SOURCED
    for itype, gpus in multi.drop(sorted(NOT_SOURCED)).items():
        assert by_type.loc[itype, "gpus"] == gpus, itype
    assert rows["source"].str.len().gt(80).all()
    assert rows["retrieved"].str.match(r"^\d{4}-\d{2}-\d{2}$").all()
    assert set(rows["interconnect"]) <= {"pcie", "nvlink", "nvswitch"}


def test_rows_parse_into_facts_and_unsourced_figures_stay_empty():
    facts = interconnects_by_type()
    assert facts["p4d.24xlarge"].kind == "nvswitch" and facts["p4d.24xlarge"].nvlink_for(8) == 600.0
    assert facts["p3.8xlarge"].nvlink_for(2) == 100.0 and facts["p3.8xlarge"].nvlink_for(4) == 200.0
    assert facts["g4dn.12xlarge"].pcie_gen == 3 and facts["g5.12xlarge"].pcie_gen == 4
    assert facts["g6.12xlarge"].network_gbps is None  # not sourced: no across-instance prediction
    for link in facts.values():
        assert link.kind == "pcie" or link.nvlink_gbps, link.instance_type
        assert link.kind != "pcie" or link.pcie_gen in (3, 4, 5), link.instance_type
