"""What a plan says beside its rows, and of each row, as facts: each remark is a kind with its numbers;
planner.report.remarks words it (see base.py)."""

from planner.core.remarks.base import (
    KINDS as KINDS,
)
from planner.core.remarks.base import (
    AtTarget as AtTarget,
)
from planner.core.remarks.base import (
    DataModelled as DataModelled,
)
from planner.core.remarks.base import (
    Remark as Remark,
)
from planner.core.remarks.base import (
    Said as Said,
)
from planner.core.remarks.base import (
    Unknown as Unknown,
)
from planner.core.remarks.base import (
    Word as Word,
)
from planner.core.remarks.base import (
    Worded as Worded,
)
from planner.core.remarks.base import (
    remark_from_json as remark_from_json,
)
from planner.core.remarks.base import (
    remark_json as remark_json,
)
from planner.core.remarks.bench import (
    AllreduceMoved as AllreduceMoved,
)
from planner.core.remarks.bench import (
    Interrupted as Interrupted,
)
from planner.core.remarks.bench import (
    IntervalWide as IntervalWide,
)
from planner.core.remarks.bench import (
    MeanAboveMedian as MeanAboveMedian,
)
from planner.core.remarks.bench import (
    NeverUsedGpu as NeverUsedGpu,
)
from planner.core.remarks.bench import (
    OneStep as OneStep,
)
from planner.core.remarks.bench import (
    OnlyWarmup as OnlyWarmup,
)
from planner.core.remarks.bench import (
    SlowSteps as SlowSteps,
)
from planner.core.remarks.bench import (
    StepsVary as StepsVary,
)
from planner.core.remarks.bench import (
    WarmupUnsettled as WarmupUnsettled,
)
from planner.core.remarks.bench import (
    WideInterval as WideInterval,
)
from planner.core.remarks.plan import (
    AutoBenchmarkedNone as AutoBenchmarkedNone,
)
from planner.core.remarks.plan import (
    DeadlineMissed as DeadlineMissed,
)
from planner.core.remarks.plan import (
    EmulatedHere as EmulatedHere,
)
from planner.core.remarks.plan import (
    EmulatedPrecision as EmulatedPrecision,
)
from planner.core.remarks.plan import (
    KindOnly as KindOnly,
)
from planner.core.remarks.plan import (
    NothingPriced as NothingPriced,
)
from planner.core.remarks.plan import (
    NotMeasuredHere as NotMeasuredHere,
)
from planner.core.remarks.plan import (
    ScaledFromBatch as ScaledFromBatch,
)
from planner.core.remarks.plan import (
    TaskPartUnused as TaskPartUnused,
)
from planner.core.remarks.rows import (
    BatchSplit as BatchSplit,
)
from planner.core.remarks.rows import (
    BenchFailed as BenchFailed,
)
from planner.core.remarks.rows import (
    CpuNoBf16 as CpuNoBf16,
)
from planner.core.remarks.rows import (
    DoesNotFit as DoesNotFit,
)
from planner.core.remarks.rows import (
    FromWorkAlone as FromWorkAlone,
)
from planner.core.remarks.rows import (
    GpusIdle as GpusIdle,
)
from planner.core.remarks.rows import (
    MeasuredBusy as MeasuredBusy,
)
from planner.core.remarks.rows import (
    NoBandwidth as NoBandwidth,
)
from planner.core.remarks.rows import (
    NoCpuClock as NoCpuClock,
)
from planner.core.remarks.rows import (
    NoGpuFigures as NoGpuFigures,
)
from planner.core.remarks.rows import (
    NoGpuSpec as NoGpuSpec,
)
from planner.core.remarks.rows import (
    NoPublishedBand as NoPublishedBand,
)
from planner.core.remarks.rows import (
    NoStepTraced as NoStepTraced,
)
from planner.core.remarks.rows import (
    NotMeasured as NotMeasured,
)
from planner.core.remarks.rows import (
    OnPaper as OnPaper,
)
from planner.core.remarks.rows import (
    Scaling as Scaling,
)
from planner.core.remarks.rows import (
    Unbacked as Unbacked,
)
from planner.core.remarks.rows import (
    UsedNoGpu as UsedNoGpu,
)
from planner.core.remarks.script import (
    AfterLastStep as AfterLastStep,
)
from planner.core.remarks.script import (
    BenchedPerSteps as BenchedPerSteps,
)
from planner.core.remarks.script import (
    BusyWhileMeasured as BusyWhileMeasured,
)
from planner.core.remarks.script import (
    CompiledEager as CompiledEager,
)
from planner.core.remarks.script import (
    EpochFromLoader as EpochFromLoader,
)
from planner.core.remarks.script import (
    FinishedInBudget as FinishedInBudget,
)
from planner.core.remarks.script import (
    FinishedShort as FinishedShort,
)
from planner.core.remarks.script import (
    GpuAsked as GpuAsked,
)
from planner.core.remarks.script import (
    LengthDisagrees as LengthDisagrees,
)
from planner.core.remarks.script import (
    LengthNotGiven as LengthNotGiven,
)
from planner.core.remarks.script import (
    NoDataLoader as NoDataLoader,
)
from planner.core.remarks.script import (
    NoEpochBoundary as NoEpochBoundary,
)
from planner.core.remarks.script import (
    NoGpuRows as NoGpuRows,
)
from planner.core.remarks.script import (
    NoUsableInterval as NoUsableInterval,
)
from planner.core.remarks.script import (
    PredictedHere as PredictedHere,
)
from planner.core.remarks.script import (
    ReadBackZeros as ReadBackZeros,
)
from planner.core.remarks.script import (
    ScriptEnvGiven as ScriptEnvGiven,
)
from planner.core.remarks.script import (
    ScriptMemory as ScriptMemory,
)
from planner.core.remarks.script import (
    StandinFailed as StandinFailed,
)
from planner.core.remarks.script import (
    StandinMemory as StandinMemory,
)
from planner.core.remarks.script import (
    StandinTrace as StandinTrace,
)
from planner.core.remarks.script import (
    StandinWorkDiffers as StandinWorkDiffers,
)
from planner.core.remarks.script import (
    StepBoundary as StepBoundary,
)
from planner.core.remarks.script import (
    StepUnsettled as StepUnsettled,
)
from planner.core.remarks.script import (
    ThreadsFitted as ThreadsFitted,
)
from planner.core.remarks.script import (
    TooBigHere as TooBigHere,
)
from planner.core.remarks.script import (
    TooSlowHere as TooSlowHere,
)
from planner.core.remarks.script import (
    TracedStep as TracedStep,
)
from planner.core.remarks.script import (
    UncountedOps as UncountedOps,
)
from planner.core.remarks.script import (
    WhatIfLength as WhatIfLength,
)
