"""Render results for people (rich tables) and for programs (JSON). No logic lives here."""

from __future__ import annotations

from typing import Any

from planner.core.formats import human_bytes, human_count, range_text, seconds_text  # noqa: F401 - re-exported for the fronts


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
    "processes", "backend", "step_seconds_no_sync", "allreduce_share", "allreduce_seconds", "gradient_bytes",
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
    if getattr(r, "processes", 1) > 1:
        t.add_row("data parallel", f"{r.processes} processes ({r.backend}), batch {r.batch_size // r.processes:,} each")
        t.add_row("all-reduce", f"{r.allreduce_share:.0%} of the step exposed (without it: "
                                f"{seconds_text(r.step_seconds_no_sync)}); {human_bytes(r.gradient_bytes or 0)} of "
                                f"gradients all-reduced alone: {seconds_text(r.allreduce_seconds)}")
    return t


def sweep_table(result):
    from rich.table import Table

    t = Table(title="batch-size sweep (advice only: the spec's batch size is the basis of every estimate)", title_justify="left")
    for col in ("batch", "x spec", "step time", "samples/s"):
        t.add_column(col, justify="right")
    for p in result.sweep:
        if p["status"] == "ok":
            note = "" if p.get("interval_usable", True) else " (few steps)"
            t.add_row(f"{p['batch_size']:,}", f"{p['factor']:g}", seconds_text(p["step_seconds"]) + note,
                      f"{p['samples_per_second']:,.0f}")
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
        t.add_column(name, justify="right" if justify == "right" else "left", no_wrap=True, style="bold" if name == purchase else None)
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


PLAN_COLUMNS = ("", "#", "target", "device", "src", "step", "1-time", "training time", "$/h", "cost", "speedup", "b-even")
LEFT_COLUMNS = ("target", "device", "src", "training time")
# To fit a narrow terminal the plan drops columns in this order (`--wide` keeps them all); what is
# dropped is still in --json, and a line under the table says so. Numbers are never cut.
DROP_ORDER = ("src", "$/h", "1-time", "step", "#")  # never the device: with the target it names the option
NOTE_WIDTH = 38


def _device(o: dict[str, Any]) -> str:
    if o["device"] == "cuda":
        name = o.get("device_name") or "cuda"
        eff = o.get("scaling_efficiency")
        instances, gpus = o.get("instances") or 1, o.get("gpus_used") or 1
        count = f" {instances}x{gpus // instances}" if instances > 1 else f" x{gpus}" if gpus > 1 else ""
        return name + count + (f" ({eff:.0%})" if eff is not None else "")
    return "cpu"


def _short(text: str, width: int = NOTE_WIDTH) -> str:
    text = " ".join(str(text).split())
    return _plain(text if len(text) <= width else text[:width - 1] + "…")


def _plain(text: str) -> str:
    """Text from a journal or the user shown as it is, never read as rich markup."""
    from rich.markup import escape

    return escape(str(text))


def _training_time(o: dict[str, Any]) -> str:
    """'2.6 min (2.2-3.0 min)': the point and its interval; said so when there is none."""
    high = o.get("train_seconds_high")
    if high is None or high == float("inf"):
        return f"{seconds_text(o['train_seconds'])} (no usable interval)"
    return f"{seconds_text(o['train_seconds'])} ({range_text(o['train_seconds_low'], high)})"


def is_recommended(o: dict[str, Any], doc: dict[str, Any]) -> bool:
    rec = doc["recommendation"]
    return (o["target"] == rec.get("target") and o["device"] == rec.get("device")
            and o.get("gpus_used") == rec.get("gpus_used"))


def _usd(usd: float | None) -> str:
    """A plan's cost cell ($0.0042 under a cent, else $1.23); the prices table's is _money."""
    if usd is None:
        return "-"
    return f"${usd:.4f}" if usd < 0.01 else f"${usd:,.2f}"


def _times(value: float | None) -> str:
    return "-" if value is None else ("inf" if value == float("inf") else f"{value:.2f}x")


def plan_row(o: dict[str, Any], doc: dict[str, Any] | None = None, note_width: int = NOTE_WIDTH) -> list[str]:
    """One option as the plan's cells (rich markup), one per PLAN_COLUMNS, for the CLI's table and
    the TUI's alike."""
    mark = "✔" if doc is not None and is_recommended(o, doc) else ""
    head = [mark, str(o["rank"]) if o.get("rank") else "-", _plain(o["target"]), _plain(_device(o)),
            "meas." if o["source"] == "measured" else "pred."]
    if o.get("train_seconds") is None or not o["fits"]:
        what = ("[red]does not fit[/]" if not o["fits"] else "not predicted" if o["source"] == "predicted"
                else "[red]failed[/]")
        step = seconds_text(o["step_seconds"]) if o.get("step_seconds") else "-"
        note = o.get("note", "")
        for said in ("does not fit", "not predicted"):  # the cell already says it
            note = note[len(said):].lstrip(":; ") if note.startswith(said) else note
        return head + [step, "", f"{what}: {_short(note, note_width)}" if note else what, "", "", "", ""]
    return head + [seconds_text(o["step_seconds"]), seconds_text(o.get("one_time_seconds")), _training_time(o),
                   f"{o['price_per_hour']:.3f}", _usd(o["cost_usd"]), _times(o.get("speedup")),
                   _times(o.get("break_even_speedup"))]


def plan_title(doc: dict[str, Any]) -> str:
    w = doc["workload"]
    objective = doc["objective"] if doc["objective"] != "deadline" else f"cheapest within {seconds_text(doc['deadline_seconds'])}"
    head = doc.get("headline") or {}
    value = head.get("time_value_per_hour")
    rule = ""
    if value is not None and doc.get("answers", {}).keys() >= {"here", "rent"}:
        rule = f"; here vs rent at ${value:g}/h of waiting" + (" (default)" if head.get("time_value_is_default") else "")
    return _plain(f"{w['name']}: {w['total_steps']:,} steps ({w['epochs']:,} epochs x {w['steps_per_epoch']:,}), "
                  f"batch {w['batch_size']:,}; objective: {objective}{rule}")


PLAN_CAPTION = ("✔ the headline. src: measured or predicted. 1-time: process start, setup, warm-up, the dataset's "
                "materialisation and, on an instance, its boot (included in training time).")


def reference_caption(doc: dict[str, Any]) -> str:
    """Which CPU every GPU row's speedup and break-even compare with (rule 4 of planner.core.decide)."""
    refs = doc.get("references") or {}
    objective = doc.get("objective")
    by = "fastest" if objective == "fastest" else "cheapest"
    parts = []
    if refs.get("rent"):
        parts.append(f"a rented GPU against {refs['rent']}, the {by} rented CPU")
    if refs.get("here") and any(o.get("device") == "cuda" and o.get("billing") == "local" for o in doc.get("options") or []):
        parts.append(f"this machine's GPU against {refs['here']}")
    if not parts:
        return ""
    return (" speedup: the reference CPU's training time / the GPU's; b(reak)-even: the ratio of their hourly rates "
            f"(instance + disk{', + waiting' if doc.get('time_value_per_hour') else ''}): {'; '.join(parts)}.")
PARALLEL_CAPTION = (" x4 (N%): four GPUs data-parallel at N% scaling efficiency; 2x8: two instances of eight GPUs "
                    "(on paper).")


def plan_table(doc: dict[str, Any], width: int | None = None, wide: bool = False):
    """The plan as a rich table; at most `width` columns wide (dropping DROP_ORDER's columns) unless `wide`."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    columns = list(PLAN_COLUMNS)
    note_width = 90 if wide else NOTE_WIDTH  # --wide: the notes (mostly) whole; --json has every one

    def build() -> Table:
        parallel = any((o.get("gpus_used") or 1) > 1 for o in doc["options"])
        t = Table(title=plan_title(doc), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption=PLAN_CAPTION + _plain(reference_caption(doc)) + (PARALLEL_CAPTION if parallel else ""),
                  caption_justify="left")
        for name in columns:
            t.add_column(name, no_wrap=True, justify="left" if name in LEFT_COLUMNS else "right")
        keep = [PLAN_COLUMNS.index(c) for c in columns]
        for o in doc["options"]:
            cells = plan_row(o, doc, note_width)
            t.add_row(*(cells[i] for i in keep), style="bold green" if is_recommended(o, doc) else None)
        return t

    table = build()
    if wide or width is None:
        return table
    measure = Console(width=10_000)
    for name in DROP_ORDER:
        if measure.measure(table).maximum <= width:
            break
        columns.remove(name)
        table = build()
    while measure.measure(table).maximum > width and note_width > 16:  # then the notes of rows that cannot run
        note_width -= 4
        table = build()
    dropped = [c for c in PLAN_COLUMNS if c not in columns]
    if dropped:
        table.caption = f"{table.caption} Not shown at this width: {', '.join(dropped)} (--wide shows them)."
    return table


VERDICT_TITLES = {"clear": "Recommendation", "only_option": "Recommendation", "likely": "Recommendation (likely)",
                  "too_close": "Too close to call", "deadline_missed": "Deadline cannot be met",
                  "nothing_fits": "No option can run this workload", "failed": "No benchmark succeeded"}


def recommended_option(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The plan's row the recommendation names (its target at its GPU count), if it has one."""
    rec = doc["recommendation"]
    return next((o for o in doc.get("options") or [] if o.get("target") == rec.get("target")
                 and o.get("gpus_used") == rec.get("gpus_used")), None)


def recommendation_text(doc: dict[str, Any], prefix: str = "") -> str:
    """The headline: the verdict, where, and why (here or rent, when the plan has both answers)."""
    rec = doc["recommendation"]
    option = recommended_option(doc)
    device = _device(option) if option is not None else rec.get("device")  # "L4", "A100 x8 (85%)": as in the table
    target = f": {rec['target']} ({device})" if rec.get("target") else ""
    why = rec.get("choice") or rec["reason"]
    why = why if why.startswith(("aws:", "local")) else why[:1].upper() + why[1:]  # a target keeps its case
    return f"{prefix}[bold]{_plain(VERDICT_TITLES[rec['verdict']] + target)}.[/] {_plain(why)}."


def answers_text(doc: dict[str, Any]) -> list[str]:
    """The two answers under the headline: training here, and the best instance to rent."""
    lines: list[str] = []
    if len(doc.get("answers") or {}) < 2:
        return lines  # one answer is the headline itself
    for key, label in (("here", "Here"), ("rent", "If you rent")):
        rec = (doc.get("answers") or {}).get(key)
        if rec is None:
            continue
        lines.append(f"  [bold]{label}:[/] {_plain(rec['reason'])}.")
    return lines


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


# ----------------------------------------------------------------------------- strict JSON

UNBOUNDED_NOTES = {
    "break_even_speedup": "infinite: the CPU option it is compared with costs nothing per hour",
}


def strict_json(value: Any) -> Any:
    """`value` ready for strict JSON (allow_nan=False): every infinite or NaN number becomes null,
    with a `<key>_note` beside it saying why (an interval with no usable end, a break-even against
    a free option)."""
    import math

    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if isinstance(v, float) and not math.isfinite(v):
                out[k] = None
                out[f"{k}_note"] = UNBOUNDED_NOTES.get(k, "unbounded: no usable interval (see interval_note)"
                                                       if v > 0 else "not a number")
            else:
                out[k] = strict_json(v)
        return out
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(data: Any) -> str:
    import json

    return json.dumps(strict_json(data), indent=2, default=str, allow_nan=False)


# ----------------------------------------------------------------------------- answers, chart, progress


def answer_text(rec: dict[str, Any] | None, prefix: str = "") -> str:
    """One answer (a recommendation of a plan document) as markup; a verdict or key it does not know
    reads plainly instead of failing, so an older or newer document still renders."""
    if not rec:
        return f"{prefix}-"
    head = VERDICT_TITLES.get(rec.get("verdict") or "", "Answer")
    target = f": {rec['target']} ({rec.get('device') or '-'})" if rec.get("target") else ""
    reason = rec.get("reason") or ""
    return f"{prefix}[bold]{head}{target}.[/]" + (f" {escape(reason)}." if reason else "")


def plan_answers(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, markup) of what a plan answers, as the CLI prints it: the headline ("recommendation",
    recommendation_text) and the "here" and "rent" answers (answers_text). A document without
    answers (a saved older plan) shows its cloud answer; one this code cannot read, plainly."""
    try:
        out = [("recommendation", recommendation_text(doc))]
    except (KeyError, TypeError, IndexError, AttributeError):
        out = [("recommendation", answer_text(doc.get("recommendation")))]
    out += [("failed", line) for line in failed_lines(doc)]
    answers = doc.get("answers") or {}
    if answers:
        try:
            lines = answers_text(doc)
            keys = [key for key in ("here", "rent") if answers.get(key) is not None]
            return out + [(key, line.strip()) for key, line in zip(keys, lines)]
        except (KeyError, TypeError):
            return out + [(key, answer_text(rec, f"{key}: ")) for key, rec in answers.items()]
    if doc.get("cloud_recommendation"):
        region = (doc.get("plan_options") or {}).get("region", "")
        out.append(("rent", answer_text(doc["cloud_recommendation"], f"If you rent{f' ({region})' if region else ''}: ")))
    return out


def failed_lines(doc: dict[str, Any]) -> list[str]:
    """Each failed benchmark with its whole reason (the table's cell is cut to fit): the headline of a
    plan where some targets failed and others did not names only the latter."""
    rec = doc.get("recommendation") or {}
    if rec.get("verdict") == "failed":
        return []  # the headline is the failures, whole
    return [f"  [red]Failed:[/] {_plain(o['target'])} ({_plain(_device(o))}): {_plain(' '.join(str(o.get('note', '')).split()))}"
            for o in doc.get("options") or [] if o.get("failed")]


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
    rent = (doc.get("references") or {}).get("rent")
    named = [c for c in cpus if c["target"] == rent]
    if named:
        return option_cost(named[0])
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
    from planner.core.candidates import Target

    try:
        return Target.parse(label).name
    except ValueError:
        return Target.from_label(label).name


def unterminated_lines(instances: list[dict[str, Any]]) -> list[str]:
    """What a run could not terminate (its document's `unterminated_instances`), each a plain
    sentence with the command that will — `planner run`'s words, for the TUI's run pane too."""
    return [f"NOT TERMINATED: {x.get('instance_id')} ({x.get('label')}) in {x.get('region')} is still billing; it halts "
            f"by its dead-man timer and is reaped after {x.get('expires_at')}. Terminate it now: {x.get('reap_command')}"
            for x in instances]
