"""Prices and the AWS account: the catalog (bundled or refreshed: from the hosted catalog, no
credentials, or from AWS's Price List API), planner-managed instances with their age, expiry and
cost so far, terminate, reap, and the account stack (infra).

Every AWS call goes through the service's boto3 session (None: standard configuration) and
`infra.aws`'s client factory; every failure is explained by `infra.aws.explain_aws_error`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from infra.aws import client, explain_aws_error, session_or_default
from infra.reaper import TAG_EXPIRES, TAG_RUN, is_expired, managed_instances, parse_time
from infra.reaper import reap as reap_instances
from planner.core.document import ManagedInstance
from planner.errors import InputError, PlannerError
from planner.service.flags import PRICE_SOURCES
from pricing.billing import instance_cost
from pricing.rows import PriceList

if TYPE_CHECKING:
    from pricing.catalog import Catalog
    from pricing.gpus import GpuFilter


@dataclass(frozen=True)
class StackState:
    """The account stack as CloudFormation describes it: its name, status ("CREATE_COMPLETE", ...; "DELETED" once
    `planner infra delete` took it) and outputs by name (bucket, security group, ...)."""

    name: str
    status: str
    outputs: dict[str, str]


@dataclass(frozen=True)
class PriceQuery:
    region: str | None = None
    gpu: bool | None = None  # True: GPU only, False: CPU only
    arch: str | None = None
    min_gpu_memory_gb: float | None = None  # per GPU, the vendor's GB
    max_price: float | None = None
    purchase: str = "on-demand"
    sort: str = "price"
    # GPU[:COUNT] as `sky gpus list` / `dstack offer --gpu` read it: A100, H100:8, 24GB..80GB
    gpus: str | None = None

    @property
    def one_region(self) -> str | None:
        """The region when the query names one (`--region us-east-1`); None for none, a list or `all`."""
        from pricing.facts import is_many_regions

        return None if self.region is None or is_many_regions(self.region) else self.region


class Account:
    """Prices and the AWS account, through one boto3 session (`PlannerService.account`)."""

    def __init__(self, aws_session: Any = None, catalog_url: str | None = None):
        self.aws_session = aws_session  # boto3.Session; None: standard configuration
        # the config file's `catalog_url`; PLANNER_CATALOG_URL overrides it
        self.catalog_url = catalog_url

    def catalog(
        self, refresh_regions: list[str] | None = None, warn: Callable[[str], None] | None = None
    ) -> Catalog:
        """The price catalog; with `refresh_regions`, fetch live prices first and fall back to the
        cache or the bundled snapshot (with a warning through `warn`) when AWS cannot be asked.
        Raises CatalogLookupError when no catalog can be read at all."""
        from pricing.catalog import load_catalog

        if refresh_regions:
            from pricing.aws import PriceRefreshError, refresh

            try:
                refresh(refresh_regions, session=self.aws_session)
            except PriceRefreshError as exc:
                if warn:
                    warn(exc.render())
        return load_catalog()

    def refresh_catalog(self, warn: Callable[[str], None] | None = None) -> Catalog:
        """Read the hosted catalog (pricing.hosted: every instance type and region, no credentials)
        into the price cache, then the catalog. A source that cannot be had or read now (server down,
        HTTP error, broken or truncated file) leaves the cache and the snapshot as they were, with a
        warning through `warn` saying why and what is used instead.
        Raises InputError when the setting itself is wrong (not a URL or readable file)."""
        from planner.service.config import config_text, read_config
        from pricing.catalog import load_catalog
        from pricing.hosted import CatalogFetchError, catalog_location, refresh_from_catalog

        try:  # PLANNER_CATALOG_URL wins over the service's URL, that over the config file's `catalog_url`
            refresh_from_catalog(
                catalog_location(self.catalog_url or config_text(read_config(), "catalog_url"))
            )
        except CatalogFetchError as exc:
            kept = load_catalog()
            if warn:
                warn(f"{exc.render()}\n  meanwhile: {kept.note}")
            return kept
        return load_catalog()

    def regions(self) -> list[str]:
        """The regions the catalog prices."""
        from pricing.catalog import regions

        return regions(self.catalog().frame)

    def instance_types(self) -> list[str]:
        """The instance types the catalog prices, in any region, sorted."""
        return sorted(set(self.catalog().frame["instance_type"]))

    def prices(
        self,
        query: PriceQuery,
        refresh: bool = False,
        warn: Callable[[str], None] | None = None,
        source: str = "catalog",
    ) -> PriceList:
        """The matching rows sorted, for `planner prices` and the TUI's target table, where the prices come from,
        and why nothing matched when nothing did (PriceList.no_match). `refresh` reads `source` first:
        "catalog" the hosted catalog (every region at once), "aws" the Price List API (the query's
        region, else the catalog's regions).
        Raises InputError (an unknown source; a region the catalog lacks, before any AWS call; a bad
        catalog setting)."""
        from pricing.catalog import (
            check_region,
            filter_instances,
            no_match,
            price_rows,
            regions,
            sort_instances,
        )

        if source not in PRICE_SOURCES:
            raise InputError(
                f"--source: must be one of {' | '.join(PRICE_SOURCES)}, got {source!r}"
            )
        found = (
            self.refresh_catalog(warn)
            if refresh and source == "catalog"
            else self.catalog(None, warn)
        )
        if query.region:
            check_region(found.frame, query.region)  # before any AWS call
        if refresh and source == "aws":
            found = self.catalog([query.region] if query.region else regions(found.frame), warn)
        if query.gpus is not None and query.gpu is False:
            raise InputError(
                f"{query.gpus} and --cpu: a GPU asked for among CPU-only instances",
                hint=f"give `planner prices {query.gpus}` or `planner prices --cpu`",
            )
        filters = _filters(found, query)
        rows = sort_instances(filter_instances(found.frame, **filters), query.sort, query.purchase)
        return PriceList(
            found.source,
            found.as_of,
            found.note,
            price_rows(rows, query.purchase),
            # why nothing matched, as facts: the GPU count or memory the model never comes with, the regions it is
            # priced in instead, or "other"
            None if len(rows) else no_match(found.frame, **filters),
        )

    def instances(self, region: str, now: dt.datetime | None = None) -> list[ManagedInstance]:
        """Planner-managed instances in `region` that are billed or could be: id, type, state, run,
        age, expiry (and whether it passed), cost so far at the catalog's price.
        Raises PlannerError explaining the AWS error (credentials, permissions, reach)."""
        from pricing.catalog import hourly_price, load_catalog

        try:
            found = managed_instances(_ec2(self.aws_session, region))
        except Exception as exc:  # noqa: BLE001 - explained in one message
            raise _explain(exc, "listing instances") from None
        now = now or dt.datetime.now(dt.timezone.utc)
        frame = load_catalog().frame if found else None
        rows = []
        for i in found:
            row = _managed(i, now)
            spot = i.get("InstanceLifecycle") == "spot"
            try:
                cost = instance_cost(
                    hourly_price(frame, row.instance_type, region, "spot" if spot else "on-demand"),
                    row.age_seconds,
                )
            except PlannerError:
                cost = None
            rows.append(replace(row, cost_so_far_usd=cost))
        return rows

    def terminate(self, region: str, instance_ids: list[str]) -> None:
        """Raises PlannerError explaining the AWS error."""
        try:
            _ec2(self.aws_session, region).terminate_instances(InstanceIds=instance_ids)
        except Exception as exc:  # noqa: BLE001
            raise _explain(exc, "terminating " + ", ".join(instance_ids)) from None

    def reap(
        self, region: str, at: str | None = None, run_id: str | None = None, dry_run: bool = False
    ) -> list[ManagedInstance]:
        """Terminate planner-managed instances past their expiry (all of `run_id`'s when given);
        `at` judges expiry as of that UTC time. Returns what was (or would be) terminated (its cost not read).
        Raises InputError (`at` is not a time), PlannerError explaining the AWS error."""
        now = None
        if at:
            now = parse_time(at)
            if now is None:
                raise InputError(f"--at: must be a UTC time like 2026-11-21T18:00:00Z, got {at!r}")
        try:
            taken = reap_instances(
                _ec2(self.aws_session, region), now=now, run_id=run_id, dry_run=dry_run
            )
        except Exception as exc:  # noqa: BLE001
            raise _explain(exc, "reaping instances") from None
        when = now or dt.datetime.now(dt.timezone.utc)
        return [_managed(i, when) for i in taken]

    def infra_template(self) -> str:
        """The account stack's CloudFormation template, rendered (JSON).
        Raises InfraError (the template cannot be rendered)."""
        from infra import stack

        return stack.render_template()

    def infra_policy(self) -> dict[str, Any]:
        """The IAM policy a planner user needs (an AWS policy document: JSON at the edge)."""
        from infra import stack

        return stack.user_policy()

    def stack(
        self,
        action: Literal["deploy", "status", "delete"],
        region: str,
        stack_name: str | None = None,
        vpc: str | None = None,
        schedule: str | None = None,
    ) -> StackState | None:
        """The account stack deployed (created or updated, `vpc` and the reaper's `schedule`), read, or deleted:
        its state after (None: not deployed; deleted, or none to delete).
        Raises PlannerError explaining the AWS error, InfraError (the template cannot be rendered)."""
        from infra import stack

        try:
            session = session_or_default(self.aws_session)
            name = stack_name or stack.DEFAULT_STACK_NAME
            if action == "delete":
                existed = stack.delete(session, region, name)
                return StackState(name, "DELETED", {}) if existed else None
            found = (
                stack.deploy(session, region, name, vpc, schedule)
                if action == "deploy"
                else stack.stack(session, region, name)
            )
        except Exception as exc:  # noqa: BLE001
            raise _explain(exc, f"infra {action}") from None
        if found is None:
            return None
        return StackState(found["StackName"], found["StackStatus"], stack.outputs(found))

    def credentials_problem(self) -> str | None:
        """Why boto3 cannot sign a request here (no credentials; found without calling AWS), None when it can."""
        from infra.aws import credentials_problem

        problem = credentials_problem(self.aws_session)
        return None if problem is None else f"{problem.message}; to fix: {problem.hint}"


def _managed(instance: dict[str, Any], now: dt.datetime) -> ManagedInstance:
    """A managed instance as EC2 describes it (boto3's record), its tags read; its cost not yet."""
    tags = {t["Key"]: t["Value"] for t in instance.get("Tags", [])}
    return ManagedInstance(
        instance_id=instance["InstanceId"],
        instance_type=instance["InstanceType"],
        state=instance["State"]["Name"],
        run_id=tags.get(TAG_RUN),
        age_seconds=(now - instance["LaunchTime"]).total_seconds(),
        expires_at=tags.get(TAG_EXPIRES),
        expired=is_expired(instance, now),
        cost_so_far_usd=None,
    )


def _filters(found: Catalog, query: PriceQuery) -> dict[str, Any]:
    """The query as pricing.catalog's filters take it (filter_instances, and no_match when nothing is left)."""
    return {
        "region": query.region,
        "gpu": query.gpu,
        "arch": query.arch,
        "min_gpu_memory_gb": query.min_gpu_memory_gb,
        "max_price": query.max_price,
        "purchase": query.purchase,
        "gpus": _gpu_filter(found, query),
    }


def _gpu_filter(found: Catalog, query: PriceQuery) -> GpuFilter | None:
    """The query's GPU filter checked against the catalog's GPUs (None: none asked).
    Raises InputError naming the value and the form."""
    from pricing.gpus import parse_gpu_filter

    if query.gpus is None:
        return None
    return parse_gpu_filter(query.gpus, set(found.frame["gpu_name"].dropna()) - {""})


def _ec2(session: Any, region: str) -> Any:  # a boto3 EC2 client
    return client(session, "ec2", region)


def _explain(exc: Exception, doing: str) -> PlannerError:
    return exc if isinstance(exc, PlannerError) else explain_aws_error(exc, doing)
