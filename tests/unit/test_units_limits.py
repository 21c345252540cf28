"""Issue 16, the numbers people type as flags: finite, in a stated range, else a ValueError (argparse:
exit 2) that says the range. The CLI wires these in; here they are tested on their own."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.units import MAX_DURATION_SECONDS, Range, parse_duration


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1e400h", "must be a duration like 4h"),
        ("nan", "must be a duration like 4h"),
        ("inf", "must be a duration like 4h"),
        ("9" * 39, "must be at most 366 days"),
        ("400d", "must be at most 366 days, got '400d'"),
        ("9" * 5000, "must be a duration like 4h"),
        ("0m", r"must be more than 0 \(a duration like 4h.*got '0m'"),  # a duration, but none
        (
            "-5",
            r"must be more than 0 \(a duration like 4h.*got '-5'",
        ),  # a trial: said as a bad form
        (" -1h", r"must be more than 0 \(a duration like 4h.*got ' -1h'"),
        (
            "-5xyz",
            r"^must be a duration like 4h, 90m, 1h30m or 2d, got '-5xyz'$",
        ),  # no duration, however signed
        # a number alone is seconds only as the whole value: '1h30' is not 1h + 30 s
        ("1h30", "got '1h30': give every number its unit"),
        ("2d4", "give every number its unit"),
        ("30 1h", "give every number its unit"),  # the spaces went, and it read as 301 h
    ],
)
def test_durations_are_finite_and_bounded(text, expected):
    with pytest.raises(ValueError, match=expected):
        parse_duration(text)


def test_a_bare_number_is_seconds():
    assert (
        parse_duration("90") == 90
        and parse_duration("1.5") == 1.5
        and parse_duration("1h30m") == 5400
    )


def test_duration_bound_is_inclusive_and_adjustable():
    assert parse_duration("366d") == MAX_DURATION_SECONDS
    with pytest.raises(ValueError, match="must be at most 2 hours"):
        parse_duration("3h", max_seconds=7200)


@pytest.mark.parametrize(
    "text", ["nan", "inf", "-inf", "1e999", "1e9", "0", "-1", "", "ten", "1" * 100]
)
def test_seconds_like_flags(text):
    with pytest.raises(
        ValueError, match=r"must be a number above 0 and at most 3,600 \(seconds\), got "
    ):
        Range(0, 3600, "seconds", low_open=True).parse(text)


def test_prices_allow_zero_but_not_nan():
    assert Range(0, 10_000).parse("0") == 0.0 and Range(0, 10_000).parse(" 2.5 ") == 2.5
    for text in ("nan", "inf", "-0.01", "10001"):
        with pytest.raises(
            ValueError, match=r"must be a number between 0 and 10,000 \(USD per hour\)"
        ):
            Range(0, 10_000, "USD per hour").parse(text)


def test_whole_flags():
    assert Range(1, 1024, whole=True).parse("8") == 8
    for text in ("0", "1025", "1.5", "1e3", "x", "9" * 5000):
        with pytest.raises(ValueError, match="must be a whole number between 1 and 1,024"):
            Range(1, 1024, whole=True).parse(text)


@settings(max_examples=200, deadline=500)
@given(st.text(max_size=60))
def test_any_text_is_a_bounded_number_or_a_value_error(text):
    for parse in (
        parse_duration,
        Range(0, 3600, low_open=True).parse,
        Range(1, 64, whole=True).parse,
    ):
        try:
            value = parse(text)
        except ValueError as exc:
            assert "must be" in str(exc) and len(str(exc)) < 200
        else:
            assert 0 <= value <= MAX_DURATION_SECONDS
