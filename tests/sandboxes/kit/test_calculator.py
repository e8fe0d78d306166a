"""The calculator is exact on money and refuses anything that is not arithmetic, quickly."""

from __future__ import annotations

import ast
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import MetaData

import sandboxes.kit.calculator as calculator_module
from sandboxes.kit.calculator import (
    FUNCTIONS,
    MAX_LENGTH,
    MAX_MAGNITUDE,
    PRECISION,
    CalculatorError,
    calculate,
    evaluate,
)
from sandboxes.kit.clock import VirtualClock
from sandboxes.kit.db import WorldDB
from sandboxes.kit.tools import ToolBox, ToolContext


def result(expression: str) -> str:
    """The string the agent would read, via the tool's own function."""
    out = calculate.fn(None, expression)
    assert out["expression"] == expression
    value: str = out["result"]
    return value


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("0.1+0.2", "0.3"),
        ("19.99*3", "59.97"),
        ("100/3", "33.333333333333333333333333333333333333333333333333"),
        ("round(2.675, 2)", "2.68"),  # exact decimal 2.675: half-even goes to 8; a float would give 2.67
        ("round(0.125, 2)", "0.12"),
        ("round_half_up(0.125, 2)", "0.13"),
        ("round_half_up(2.5)", "3"),
        ("round(2.5)", "2"),
        ("(1299-50)*0.8", "999.2"),
        ("1.10 + 2.20", "3.3"),
        ("1e2 + .5", "100.5"),
        ("2**64", "18446744073709551616"),
        ("2**-2", "0.25"),
        ("sum(19.99 * 3, 4.50, 12)", "76.47"),
        ("min(3, 1.5, 2)", "1.5"),
        ("max(0, 250 - 310.5)", "0"),
        ("abs(-12.5)", "12.5"),
        ("-0", "0"),
        ("  7 * 6  ", "42"),
    ],
)
def test_exact_decimal_results(expression: str, expected: str) -> None:
    assert result(expression) == expected


def test_evaluate_returns_exact_decimal() -> None:
    assert evaluate("0.1 + 0.2") == Decimal("0.3")
    assert evaluate("round(2.675, 2)") == Decimal("2.68")
    assert evaluate("1/3") == Decimal("0." + "3" * 50)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2 + 3 * 4", "14"),
        ("(2 + 3) * 4", "20"),
        ("-2 ** 2", "-4"),
        ("(-2) ** 2", "4"),
        ("2 ** 3 ** 2", "512"),
        ("--5", "5"),
        ("-3 - -2", "-1"),
        ("10 - 4 - 3", "3"),
        ("100 / 10 / 5", "2"),
        ("-7 // 2", "-4"),  # floor, as in Python, not Decimal's truncation
        ("-7 % 2", "1"),
        ("7 % -2", "-1"),
        ("7.5 // 2", "3"),
    ],
)
def test_precedence_unary_minus_and_floor_semantics(expression: str, expected: str) -> None:
    assert result(expression) == expected


def test_long_flat_sum_is_not_a_depth_problem() -> None:
    expression = "+".join(str(i) for i in range(1, 101))  # 100 terms, 291 characters
    assert result(expression) == "5050"


AMOUNTS = st.decimals(min_value=-(10**9), max_value=10**9, places=2, allow_nan=False, allow_infinity=False)
EXACT = Context(prec=PRECISION)


def _operand(value: Decimal) -> str:
    """A decimal as an agent would type it: plain digits, a negative one in brackets."""
    text = format(value, "f")
    return f"({text})" if text.startswith("-") else text


@settings(max_examples=60, deadline=None)
@given(a=AMOUNTS, b=AMOUNTS, op=st.sampled_from(["+", "-", "*", "/"]))
def test_results_agree_with_decimal_arithmetic(a: Decimal, b: Decimal, op: str) -> None:
    if op == "/" and b == 0:
        with pytest.raises(CalculatorError, match="division by zero"):
            evaluate(f"{_operand(a)} / {_operand(b)}")
        return
    exact = {"+": EXACT.add, "-": EXACT.subtract, "*": EXACT.multiply, "/": EXACT.divide}[op]
    assert evaluate(f"{_operand(a)} {op} {_operand(b)}") == exact(a, b)


@settings(max_examples=40, deadline=None)
@given(a=st.integers(-(10**12), 10**12), b=st.integers(-(10**6), 10**6).filter(bool))
def test_floor_division_and_remainder_follow_python_integers(a: int, b: int) -> None:
    assert evaluate(f"{_operand(Decimal(a))} // {_operand(Decimal(b))}") == a // b
    assert evaluate(f"{_operand(Decimal(a))} % {_operand(Decimal(b))}") == a % b


@settings(max_examples=40, deadline=None)
@given(x=st.decimals(min_value=-(10**6), max_value=10**6, places=6, allow_nan=False, allow_infinity=False),
       places=st.integers(0, 4))
def test_rounding_agrees_with_decimal_quantize(x: Decimal, places: int) -> None:
    step = Decimal(1).scaleb(-places)
    assert evaluate(f"round({_operand(x)}, {places})") == x.quantize(step, rounding=ROUND_HALF_EVEN)
    assert evaluate(f"round_half_up({_operand(x)}, {places})") == x.quantize(step, rounding=ROUND_HALF_UP)


@settings(max_examples=30, deadline=None)
@given(amounts=st.lists(AMOUNTS, min_size=1, max_size=20))
def test_sums_are_exact(amounts: list[Decimal]) -> None:
    total = sum(amounts, Decimal(0))
    terms = [_operand(a) for a in amounts]
    assert evaluate(" + ".join(terms)) == total
    assert evaluate(f"sum({', '.join(terms)})") == total


def _bounded_or_refused(expression: str) -> None:
    """The calculator answers with a bounded, finite Decimal or refuses with CalculatorError, never anything else."""
    try:
        value = evaluate(expression)
    except CalculatorError:
        return
    assert isinstance(value, Decimal) and value.is_finite()
    assert not value or -MAX_MAGNITUDE <= value.adjusted() <= MAX_MAGNITUDE


@settings(max_examples=80, deadline=None)
@given(text=st.text(max_size=60) | st.text(alphabet="0123456789.e+-*/%() ,_abcdmnorstuxj'[]", max_size=60))
def test_any_text_is_answered_within_bounds_or_refused(text: str) -> None:
    _bounded_or_refused(text)


_NUMBER_TEXT = st.decimals(min_value=-(10**6), max_value=10**6, places=3, allow_nan=False,
                           allow_infinity=False).map(_operand)
_EXPRESSIONS = st.recursive(
    _NUMBER_TEXT | st.sampled_from(["0", "10**30", "1e-30", "99999999999", "0.000001"]),
    lambda inner: st.builds(lambda a, op, b: f"({a} {op} {b})", inner,
                            st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), inner)
    | st.builds(lambda f, xs: f"{f}({', '.join(xs)})", st.sampled_from(["abs", "max", "min", "sum", "round"]),
                st.lists(inner, min_size=1, max_size=3)),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(expression=_EXPRESSIONS)
def test_arithmetic_of_any_shape_stays_within_bounds(expression: str) -> None:
    _bounded_or_refused(expression)


@settings(max_examples=40, deadline=None)
@given(name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True).filter(lambda n: n not in FUNCTIONS),
       shape=st.sampled_from(["{}", "{}()", "{}(1)", "{}.real", "__import__('{}')", "1 + {}", "sum(1, {}())"]))
def test_no_name_but_the_whitelisted_functions_is_ever_evaluated(name: str, shape: str) -> None:
    with pytest.raises(CalculatorError):
        evaluate(shape.format(name))


@settings(max_examples=20, deadline=None)
@given(text=st.text(alphabet="0123456789+-*/(). ", min_size=MAX_LENGTH + 1, max_size=MAX_LENGTH + 80))
def test_anything_longer_than_the_limit_is_refused(text: str) -> None:
    with pytest.raises(CalculatorError):
        evaluate(text)


REJECTED = [
    ("__import__('os')", "'__import__' is not available"),
    ("open('x')", "'open' is not available"),
    ("a+1", "names"),
    ("1 if 1 else 2", "if/else"),
    ("[1,2]", "lists"),
    ("sum([1, 2])", "sum(1, 2, 3)"),
    ("'a'*3", "strings"),
    ("f'{1}'", "f-strings"),
    ("lambda: 1", "lambda"),
    ("(1).real", "attribute"),
    ("1 < 2", "comparisons"),
    ("1, 2", "tuples"),
    ("True + 1", "not a number"),
    ("round(1.5, ndigits=0)", "keyword"),
    ("2 ^ 3", "** is power"),
    ("2**1000", "exponent 1000"),
    ("9**9**9", "exponent 387420489"),
    ("2 ** 0.5", "whole-number exponent"),
    ("1/0", "division by zero"),
    ("5 // 0", "division by zero"),
    ("5 % (2 - 2)", "division by zero"),
    ("0 ** -1", "division by zero"),
    ("0 ** 0", "cannot compute"),
    ("1" * 501, "limit is 500"),
    ("(" * 100 + "1" + ")" * 100, "brackets nest"),
    ("(1+" * 100 + "1" + ")" * 100, "brackets nest"),
    ("-" * 60 + "1", "nest more than 40"),
    ("1+" * 220 + "1", "more than 200"),
    ("1e999999999", "out of range"),
    ("1e-31", "out of range"),
    ("10**30 * 10", "out of range"),
    ("1" * 51, "more than 50 significant digits"),
    ("0x10", "hex"),
    ("1_000", "underscores"),
    ("1j", "plain decimals"),
    ("round(1, 13)", "0 to 12"),
    ("round(1, -1)", "0 to 12"),
    ("round(1, 0.5)", "whole number"),
    ("abs(1, 2)", "abs(x)"),
    ("min()", "at least one"),
    ("", "empty"),
    ("1 +", "not a valid expression"),
    ("1\x00", "not a valid expression"),
]


@pytest.mark.parametrize(("expression", "fragment"), REJECTED)
def test_rejections_are_clear_and_quick(expression: str, fragment: str) -> None:
    start = time.perf_counter()
    with pytest.raises(CalculatorError) as caught:
        evaluate(expression)
    assert time.perf_counter() - start < 0.5
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.fixture
def box() -> Iterator[ToolBox]:
    db = WorldDB.empty(MetaData())
    ctx = ToolContext(db=db, clock=VirtualClock(datetime(2026, 1, 1, tzinfo=UTC)))
    yield ToolBox([calculate], ctx)
    db.close()


def test_tool_call_through_toolbox(box: ToolBox) -> None:
    good = box.call("calculate", {"expression": "round_half_up(19.99 * 3 * 0.85, 2)"})
    assert good.ok
    assert good.result == {"expression": "round_half_up(19.99 * 3 * 0.85, 2)", "result": "50.97"}
    bad = box.call("calculate", {"expression": "__import__('os').system('ls')"})
    assert not bad.ok
    assert bad.error is not None
    assert bad.error["kind"] == "bad_arguments"
    assert "not available" in bad.error["message"]
    assert box.call("calculate", {"expression": 3}).error == {
        "kind": "bad_arguments", "message": "expression: Input should be a valid string"
    }
    assert [r.ok for r in box.history] == [True, False, False]
    assert not box.mutates("calculate")


def test_spec_tells_the_agent_what_is_allowed(box: ToolBox) -> None:
    (spec,) = box.specs()
    assert spec["name"] == "calculate"
    description = spec["description"]
    for word in ("round_half_up", "round(", "abs(", "min(", "max(", "sum(", "**", "500", "exact"):
        assert word in description
    assert spec["parameters"]["required"] == ["expression"]
    assert "round_half_up" in spec["parameters"]["properties"]["expression"]["description"]


def test_module_never_calls_eval_exec_or_compile() -> None:
    source = Path(calculator_module.__file__).read_text(encoding="utf-8")
    called = {
        node.func.id
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert not called & {"eval", "exec", "compile", "__import__"}
