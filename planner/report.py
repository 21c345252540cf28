"""Render results for people (rich tables) and for programs (JSON). No logic lives here."""

from __future__ import annotations

from typing import Any

from planner.formats import human_bytes, human_count, range_text, seconds_text  # noqa: F401 - re-exported for the fronts


def check_summary(spec, fp) -> dict[str, Any]:
    return {
        "workload": spec.name,
        "kind": spec.model.kind,
        "task": spec.task,
        "samples": spec.data.samples,
        "batch_size": spec.batch_size,
        "steps_per_epoch": spec.steps_per_epoch,
        "epochs": spec.train.epochs,
        "total_steps": spec.total_steps,
        "data_location": spec.data.location,
        "flops_per_sample": fp.train_flops_per_sample,
        "flops_per_step": fp.train_flops_per_sample * spec.batch_size,
        "memory": fp.as_dict(),
    }


def check_table(spec, fp):
    from rich.table import Table

    t = Table(title=f"{spec.name}: {spec.model.kind}, {spec.task}", show_header=False, title_justify="left")
    t.add_column(style="bold")
    t.add_column()
    t.add_row("parameters", f"{fp.params:,} ({human_count(fp.params)})")
    t.add_row("FLOPs per sample", f"{human_count(fp.train_flops_per_sample)} (forward + backward)")
    t.add_row("FLOPs per step", f"{human_count(fp.train_flops_per_sample * spec.batch_size)} at batch {spec.batch_size:,}")
    t.add_row("steps", f"{spec.steps_per_epoch:,} per epoch x {spec.train.epochs:,} epochs = {spec.total_steps:,}")
    t.add_row("training memory", f"{human_bytes(fp.total_bytes)} ({fp.precision}, batch {fp.batch_size:,})")
    t.add_row("  weights", human_bytes(fp.weights_bytes))
    t.add_row("  gradients", human_bytes(fp.gradients_bytes))
    t.add_row(f"  optimizer ({spec.train.optimizer})", human_bytes(fp.optimizer_bytes))
    t.add_row("  activations", human_bytes(fp.activations_bytes))
    t.add_row(f"  data (on {spec.data.location})", human_bytes(fp.data_bytes))
    return t


def check_lines(spec, fp) -> list[str]:
    """The check summary as aligned plain lines (the TUI's side panel)."""
    return [f"parameters        {fp.params:,}",
            f"FLOPs per sample  {human_count(fp.train_flops_per_sample)}",
            f"steps             {spec.steps_per_epoch:,} x {spec.train.epochs:,} epochs = {spec.total_steps:,}",
            f"training memory   {human_bytes(fp.total_bytes)} ({fp.precision}, batch {fp.batch_size:,})",
            f"  weights+grads   {human_bytes(fp.weights_bytes + fp.gradients_bytes)}",
            f"  optimizer       {human_bytes(fp.optimizer_bytes)}",
            f"  activations     {human_bytes(fp.activations_bytes)}",
            f"  data            {human_bytes(fp.data_bytes)}"]


BENCH_JSON_KEYS = (
    "status", "message", "workload", "device", "device_name", "torch_version", "threads", "precision", "batch_size",
    "steps_per_epoch", "steps_measured", "step_seconds", "step_seconds_ci_low", "step_seconds_ci_high",
    "step_seconds_median", "step_seconds_p10", "step_seconds_p90", "coefficient_of_variation",
    "samples_per_second", "peak_memory_bytes", "peak_memory_kind", "warmup_seconds", "warmup_steps",
    "setup_seconds", "stopped_because", "warnings", "sweep",
)


def bench_json(result) -> dict[str, Any]:
    data = result.to_dict()
    return {k: data.get(k) for k in BENCH_JSON_KEYS}


def bench_table(result):
    from rich.table import Table

    r = result
    t = Table(title=f"{r.workload} on {r.device} ({r.device_name})", show_header=False, title_justify="left")
    t.add_column(style="bold")
    t.add_column()
    if r.status != "ok":
        t.add_row("result", f"[red]{r.status}[/]: {r.message}")
        return t
    half = (r.step_seconds_ci_high - r.step_seconds) / r.step_seconds if r.step_seconds else 0
    t.add_row("step time (mean)", f"{seconds_text(r.step_seconds)} +-{half:.1%} (95% interval)")
    t.add_row("median / p10 / p90", f"{seconds_text(r.step_seconds_median)} / {seconds_text(r.step_seconds_p10)} / {seconds_text(r.step_seconds_p90)}")
    t.add_row("variation", f"{r.coefficient_of_variation:.1%} coefficient of variation")
    t.add_row("throughput", f"{r.samples_per_second:,.0f} samples/s at batch {r.batch_size:,}")
    t.add_row("steps measured", f"{r.steps_measured:,} ({r.stopped_because})")
    t.add_row("warm-up", f"{seconds_text(r.warmup_seconds)} over {r.warmup_steps:,} steps; setup {seconds_text(r.setup_seconds)}")
    kind = "CUDA max allocated" if r.peak_memory_kind == "cuda_max_allocated" else "peak RSS of the bench process"
    t.add_row("peak memory", f"{human_bytes(r.peak_memory_bytes or 0)} ({kind})")
    t.add_row("software", f"torch {r.torch_version}, {r.threads} threads, {r.precision}")
    return t


def sweep_table(result):
    from rich.table import Table

    t = Table(title="batch-size sweep (advice only: the spec's batch size is the basis of every estimate)", title_justify="left")
    for col in ("batch", "x spec", "step time", "samples/s"):
        t.add_column(col, justify="right")
    for p in result.sweep:
        if p["status"] == "ok":
            t.add_row(f"{p['batch_size']:,}", f"{p['factor']:g}", seconds_text(p["step_seconds"]), f"{p['samples_per_second']:,.0f}")
        else:
            t.add_row(f"{p['batch_size']:,}", f"{p['factor']:g}", p["status"].replace("_", " "), p.get("message", "")[:40])
    return t


# ----------------------------------------------------------------------------- prices

PRICE_JSON_COLUMNS = (
    "instance_type", "region", "vcpus", "memory_gib", "arch", "gpu_name", "gpu_count", "gpu_memory_gib",
    "ondemand_usd_per_hour", "spot_usd_per_hour_min", "spot_usd_per_hour_median", "zones", "source", "as_of",
)


def _clean(value: Any) -> Any:
    """JSON-safe scalars: NaN/NA -> None, numpy numbers -> Python numbers."""
    import math

    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def prices_json(catalog, rows) -> dict[str, Any]:
    instances = [{col: _clean(row[col]) for col in PRICE_JSON_COLUMNS} for _, row in rows.iterrows()]
    for inst in instances:
        inst["gpu_name"] = inst["gpu_name"] or None
    return {"source": catalog.source, "as_of": catalog.as_of, "note": catalog.note, "instances": instances}


def _money(value: Any) -> str:
    value = _clean(value)
    return "-" if value is None else f"{value:,.4f}" if value < 1 else f"{value:,.2f}"


def prices_table(catalog, rows, purchase: str = "on-demand"):
    from rich import box
    from rich.table import Table

    one_region = rows["region"].nunique() == 1
    title = f"AWS instances in {rows['region'].iloc[0]}" if one_region else "AWS instances"
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              caption=f"Source: {catalog.source}, as of {catalog.as_of}; {catalog.note}.\n"
                      "Prices in USD per hour; spot is the median over the region's zones ('-': not offered).",
              caption_justify="left")
    any_gpu = bool((rows["gpu_count"] > 0).any())
    columns = [("instance", "left"), ("vCPUs", "right"), ("GiB", "right")]
    columns += [("GPU", "left"), ("GPU GiB", "right")] if any_gpu else []
    for name, justify in columns + [("on-demand", "right"), ("spot", "right")]:
        t.add_column(name, justify=justify, no_wrap=True, style="bold" if name == purchase else None)
    if not one_region:
        t.add_column("region", no_wrap=True)
    for _, r in rows.iterrows():
        gpu = f"{int(r['gpu_count'])}x {r['gpu_name']}" if r["gpu_count"] else "-"
        gpu_mem = f"{_clean(r['gpu_memory_gib']):.4g}" if r["gpu_count"] else "-"
        cells = [r["instance_type"], f"{int(r['vcpus'])}", f"{_clean(r['memory_gib']):g}"]
        cells += [gpu, gpu_mem] if any_gpu else []
        cells += [_money(r["ondemand_usd_per_hour"]), _money(r["spot_usd_per_hour_median"])]
        t.add_row(*cells, *([] if one_region else [r["region"]]))
    return t


# ----------------------------------------------------------------------------- plans


def _interval(o: dict[str, Any]) -> str:
    if o.get("train_seconds") is None:
        return "-"
    return f"{seconds_text(o['train_seconds'])} ({range_text(o['train_seconds_low'], o['train_seconds_high'])})"


def _device(o: dict[str, Any]) -> str:
    if o["device"] == "cuda":
        return o.get("device_name") or "cuda"
    return "cpu"


PLAN_COLUMNS = ("#", "target", "device", "source", "step", "training time", "$/h", "cost", "speedup", "break-even")
LEFT_COLUMNS = ("target", "device", "source", "training time")


def is_recommended(o: dict[str, Any], doc: dict[str, Any]) -> bool:
    rec = doc["recommendation"]
    return o["target"] == rec.get("target") and o["device"] == rec.get("device")


def plan_row(o: dict[str, Any]) -> list[str]:
    """One option as the plan's cells (rich markup), for the CLI's table and the TUI's alike."""
    head = [str(o["rank"]) if o.get("rank") else "-", o["target"], _device(o), o["source"]]
    if not o["fits"]:
        return head + ["-", f"[red]does not fit[/] {o.get('note', '')}", "", "", "", ""]
    if o.get("train_seconds") is None:
        what = "not predicted" if o["source"] == "predicted" else "[red]failed[/]"
        return head + ["-", f"{what}: {o.get('note', '')}", "", "", "", ""]
    speed = f"{o['speedup']:.2f}x" if o.get("speedup") is not None else "-"
    be = o.get("break_even_speedup")
    be_text = "-" if be is None else ("inf" if be == float("inf") else f"{be:.2f}x")
    cost = o["cost_usd"]
    return head + [seconds_text(o["step_seconds"]), _interval(o), f"{o['price_per_hour']:.3f}",
                   f"${cost:.4f}" if cost < 0.01 else f"${cost:,.2f}", speed, be_text]


def plan_title(doc: dict[str, Any]) -> str:
    w = doc["workload"]
    objective = doc["objective"] if doc["objective"] != "deadline" else f"cheapest within {seconds_text(doc['deadline_seconds'])}"
    return (f"{w['name']}: {w['total_steps']:,} steps ({w['epochs']:,} epochs x {w['steps_per_epoch']:,}), "
            f"batch {w['batch_size']:,}; objective: {objective}")


def plan_table(doc: dict[str, Any]):
    from rich import box
    from rich.table import Table

    t = Table(title=plan_title(doc), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              caption="source: measured here or on the instance, or predicted by the device model; "
                      "speedup and break-even against the reference CPU option", caption_justify="left")
    for name in PLAN_COLUMNS:
        t.add_column(name, no_wrap=True, justify="left" if name in LEFT_COLUMNS else "right")
    for o in doc["options"]:
        t.add_row(*plan_row(o), style="bold green" if is_recommended(o, doc) else None)
    return t


def recommendation_text(doc: dict[str, Any], prefix: str = "") -> str:
    rec = doc["recommendation"]
    head = {"clear": "Recommendation", "only_option": "Recommendation", "too_close": "Too close to call",
            "deadline_missed": "Deadline cannot be met", "nothing_fits": "No option can run this workload"}[rec["verdict"]]
    target = f": {rec['target']} ({rec['device']})" if rec.get("target") else ""
    return f"{prefix}[bold]{head}{target}.[/] {rec['reason']}."


# ----------------------------------------------------------------------------- instances

INSTANCE_COLUMNS = ("instance", "type", "state", "run", "age", "expires at", "cost so far")


def instance_row(r: dict[str, Any]) -> list[str]:
    """One planner-managed instance (PlannerService.instances) as cells, for `planner ls` and the TUI."""
    return [r["instance_id"], r["instance_type"], r["state"], r["run_id"] or "-", seconds_text(r["age_seconds"]),
            (r["expires_at"] or "-") + (" [red](expired)[/]" if r["expired"] else ""),
            "-" if r["cost_so_far_usd"] is None else f"${r['cost_so_far_usd']:.4f}"]


def instances_table(rows: list[dict[str, Any]]):
    from rich.table import Table

    t = Table(title="planner-managed instances", title_justify="left")
    for col in INSTANCE_COLUMNS:
        t.add_column(col, no_wrap=True)
    for r in rows:
        t.add_row(*instance_row(r))
    return t


# ----------------------------------------------------------------------------- answers, chart, progress

VERDICT_HEADS = {"clear": "Recommendation", "only_option": "Recommendation", "too_close": "Too close to call",
                 "deadline_missed": "Deadline cannot be met", "nothing_fits": "No option can run this workload"}
ANSWER_TITLES = (("here", "Here"), ("rent", "If you rent"))


def answer_text(rec: dict[str, Any] | None, prefix: str = "") -> str:
    """One answer (a recommendation of a plan document) as markup; a verdict or key it does not know
    reads plainly instead of failing, so a newer document still renders."""
    if not rec:
        return f"{prefix}-"
    head = VERDICT_HEADS.get(rec.get("verdict") or "", "Answer")
    target = f": {rec['target']} ({rec.get('device') or '-'})" if rec.get("target") else ""
    reason = rec.get("reason") or ""
    return f"{prefix}[bold]{head}{target}.[/]" + (f" {escape(reason)}." if reason else "")


def plan_answers(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, markup) for what a plan answers: the headline ("recommendation"), then "here" and "if
    you rent" when the document has both answers, else the estimate's answer in the cloud."""
    out = [("recommendation", answer_text(doc.get("recommendation")))]
    answers = doc.get("answers") or {}
    if answers:
        out += [(key, answer_text(answers.get(key), f"{title}: ")) for key, title in ANSWER_TITLES if key in answers]
    elif doc.get("cloud_recommendation"):
        region = (doc.get("plan_options") or {}).get("region", "")
        out.append(("rent", answer_text(doc["cloud_recommendation"], f"If you rent{f' ({region})' if region else ''}: ")))
    return out


def escape(text: str) -> str:
    """Text shown inside markup: brackets in reasons ([0.2-1.1x]) are not tags."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def break_even_cost(doc: dict[str, Any]) -> float | None:
    """Where a GPU breaks even: the objective value (cost, plus waiting at the time value when one is
    set) of the reference CPU option its speedup is measured against — speedup = break-even exactly
    when the GPU's run costs what the CPU's does. The reference is the row a GPU row names
    (`reference`), else the CPU row whose training time is a GPU row's speedup x that GPU's time;
    None when no GPU row has a speedup."""
    options = doc.get("options") or []
    cpus = [o for o in options if o.get("device") == "cpu" and o.get("train_seconds") and option_cost(o) is not None]
    for g in options:
        if g.get("device") != "cuda" or not g.get("speedup") or not g.get("train_seconds"):
            continue
        named = [c for c in cpus if c["target"] == g.get("reference")]
        if named:
            return option_cost(named[0])
        ref_seconds = g["speedup"] * g["train_seconds"]
        for c in cpus:
            if abs(c["train_seconds"] - ref_seconds) <= 1e-6 * ref_seconds:
                return option_cost(c)
    return None


def option_cost(o: dict[str, Any]) -> float | None:
    """What the plan weighs an option's cost at: its objective value (billed cost plus waiting at the
    time value), the point its cost interval (cost_usd_low..high) surrounds; else the billed cost."""
    value = o.get("objective_value")
    return value if value is not None else o.get("cost_usd")


def progress_text(event: dict[str, Any]) -> str:
    """A bench progress event (the `on_progress` callbacks) as a short line."""
    kind = event.get("event")
    if kind == "built":
        text = "warming up"
    elif kind == "warmup":
        text = f"warming up: {seconds_text(event.get('step_seconds'))}/step"
    elif kind == "measure":
        text = (f"measuring: {event.get('steps', 0):,} steps, {seconds_text(event.get('step_seconds'))}/step "
                f"+-{event.get('rel_ci', 0):.1%}")
    elif kind == "sweep":
        text = "batch-size sweep"
    else:
        text = str(kind)
    elapsed = event.get("seconds")
    return text + (f"  ({elapsed:.0f} s)" if elapsed else "")


def label_target(label: str) -> str:
    """The target a run's label belongs to, as users type it: local-cpu -> local, aws-g5.xlarge ->
    aws:g5.xlarge; a target given as typed (local, aws:g5.xlarge) is itself."""
    from planner.options import Target

    try:
        return Target.parse(label).name
    except ValueError:
        return Target.from_label(label).name
