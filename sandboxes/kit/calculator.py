"""A calculator tool that does exact decimal arithmetic and never runs the agent's text as code.

Models doing business jobs get cents wrong in their heads, and a calculator built on
`eval` or floats would hand them a code runner or 0.30000000000000004. So an expression
is parsed, walked against a short whitelist, and computed with `Decimal` in a private
context, with every size (text, tree, exponent, magnitude) bounded before it can cost
time or memory.
"""

from __future__ import annotations

import ast
import re
from decimal import (
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
)

from typing_extensions import TypedDict

from sandboxes.kit.tools import ToolContext, ToolError, tool

__all__ = ["Calculation", "CalculatorError", "calculate", "evaluate"]

MAX_LENGTH = 500
MAX_DEPTH = 40
MAX_NODES = 200
MAX_EXPONENT = 64
MAX_PLACES = 12
PRECISION = 50
MAX_MAGNITUDE = 30
"""Nonzero values must lie in [1e-30, 1e31): roomy for any ledger, and it keeps round(x, 12)
exact within PRECISION digits and every printed result short."""

FUNCTIONS = ("abs", "max", "min", "round", "round_half_up", "sum")
_HELP = "use numbers, + - * / // % ** and ( ), and the functions " + ", ".join(FUNCTIONS)
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_OPERATORS: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.BitXor: "^", ast.BitOr: "|", ast.BitAnd: "&", ast.LShift: "<<",
    ast.RShift: ">>", ast.MatMult: "@", ast.Invert: "~", ast.Not: "not",
}
_CONSTRUCTS: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access (x.y)", ast.Subscript: "indexing (x[i])",
    ast.Compare: "comparisons", ast.BoolOp: "and/or", ast.IfExp: "if/else", ast.Lambda: "lambda",
    ast.JoinedStr: "f-strings", ast.List: "lists (pass numbers directly: sum(1, 2, 3))",
    ast.Tuple: "tuples", ast.Set: "sets", ast.Dict: "dicts", ast.Starred: "* unpacking",
    ast.NamedExpr: "assignment (:=)", ast.ListComp: "comprehensions",
    ast.GeneratorExp: "generators", ast.SetComp: "comprehensions", ast.DictComp: "comprehensions",
}


class CalculatorError(ValueError):
    """An expression the calculator refuses; the message tells the agent how to fix it."""


def evaluate(expression: str) -> Decimal:
    """The exact value of ``expression``, checked against every limit before any arithmetic.

    Raises:
        CalculatorError: the expression is malformed, uses anything off the whitelist,
            or exceeds a size limit.
    """
    text = expression.strip()
    if not text:
        raise CalculatorError(f"the expression is empty; {_HELP}, e.g. (1299 - 50) * 0.8")
    if len(expression) > MAX_LENGTH:
        raise CalculatorError(f"the expression has {len(expression)} characters; the limit is {MAX_LENGTH}")
    depth = 0
    for char in text:  # bound bracket nesting before the parser sees it
        depth += (char in "([{") - (char in ")]}")
        if depth > MAX_DEPTH:
            raise CalculatorError(f"brackets nest more than {MAX_DEPTH} deep; simplify the expression")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise CalculatorError(f"not a valid expression ({err.msg}); {_HELP}") from None
    except (ValueError, RecursionError, MemoryError):
        raise CalculatorError(f"not a valid expression; {_HELP}") from None
    if sum(isinstance(n, ast.expr) for n in ast.walk(tree)) > MAX_NODES:
        raise CalculatorError(f"more than {MAX_NODES} numbers and operations; split the calculation")
    if _depth(tree.body) > MAX_DEPTH:
        raise CalculatorError(f"operations nest more than {MAX_DEPTH} deep; split the calculation")
    return _Evaluator(text).eval(tree.body)


def _depth(node: ast.expr) -> int:
    """Nesting as the evaluator recurses: a flat chain a+b+c+... counts once, not per term."""
    if isinstance(node, ast.BinOp):
        return max(_depth(node.left), 1 + _depth(node.right))
    kids = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
    return 1 + max((_depth(c) for c in kids), default=0)


def _show(value: Decimal) -> str:
    return str(value) if len(str(value)) <= 24 else f"{value:.6e}"


class _Evaluator:
    def __init__(self, source: str) -> None:
        self.source = source
        self.line = None if "\n" in source or "\r" in source else source.encode()
        """A one-line expression's UTF-8 bytes, which the parser's column offsets count."""
        # A fresh context per expression: operations set its flags, so sharing one would leak state.
        self.ctx = Context(prec=PRECISION, Emax=10**6, Emin=-(10**6),
                           traps=[InvalidOperation, DivisionByZero, Overflow])

    def eval(self, node: ast.expr) -> Decimal:
        if isinstance(node, ast.Constant):
            return self.literal(node)
        if isinstance(node, ast.BinOp):
            chain: list[ast.BinOp] = []  # walk the left spine in a loop so long sums do not recurse
            while isinstance(node, ast.BinOp):
                chain.append(node)
                node = node.left
            value = self.eval(node)
            for link in reversed(chain):
                value = self.binary(link.op, value, self.eval(link.right))
            return value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = self.eval(node.operand)
            return self.ctx.minus(operand) if isinstance(node.op, ast.USub) else self.ctx.plus(operand)
        if isinstance(node, ast.UnaryOp):
            raise CalculatorError(f"operator {_OPERATORS.get(type(node.op), '?')} is not allowed; {_HELP}")
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Name):
            raise CalculatorError(f"names such as {node.id[:40]!r} are not allowed; write the numbers "
                                  f"themselves, and call only {', '.join(FUNCTIONS)}")
        what = _CONSTRUCTS.get(type(node), type(node).__name__)
        raise CalculatorError(f"not allowed: {what}; {_HELP}")

    def literal(self, node: ast.Constant) -> Decimal:
        if isinstance(node.value, str | bytes):
            raise CalculatorError(f"strings are not allowed; {_HELP}")
        if isinstance(node.value, bool) or not isinstance(node.value, int | float | complex):
            raise CalculatorError(f"{node.value!r} is not a number; {_HELP}")
        text = self.segment(node)
        if not _NUMBER.fullmatch(text):
            raise CalculatorError(f"number {text[:40]!r} is not allowed: write plain decimals such as "
                                  "1250, 0.075 or 2.5e3 (no underscores, hex, octal, binary or j)")
        value = Decimal(text)
        if len(value.as_tuple().digits) > PRECISION:
            raise CalculatorError(f"number {text[:40]!r} has more than {PRECISION} significant digits")
        return self.bounded(value)

    def segment(self, node: ast.expr) -> str:
        """``node``'s source text, as `ast.get_source_segment` gives it; sliced from the one line when there
        is one, since that splits the whole expression into lines again for every number (a sum of 35
        products spent 3 ms there)."""
        if self.line is not None and node.end_col_offset is not None:
            return self.line[node.col_offset:node.end_col_offset].decode()
        return ast.get_source_segment(self.source, node) or ""

    def binary(self, op: ast.operator, a: Decimal, b: Decimal) -> Decimal:
        sym = _OPERATORS.get(type(op), "?")
        c = self.ctx
        if sym in ("^", "|", "&", "<<", ">>", "@", "?"):
            raise CalculatorError(f"operator {sym} is not allowed (** is power); {_HELP}")
        if sym in ("/", "//", "%") and b == 0:
            raise CalculatorError(f"division by zero in {_show(a)} {sym} 0")
        if sym == "**":
            if b != b.to_integral_value(context=c) or not -MAX_EXPONENT <= b <= MAX_EXPONENT:
                raise CalculatorError(f"exponent {_show(b)} is not allowed: powers take a whole-number "
                                      f"exponent from -{MAX_EXPONENT} to {MAX_EXPONENT}")
            if a == 0 and b < 0:
                raise CalculatorError("division by zero: 0 cannot be raised to a negative power")
        try:
            if sym in ("//", "%"):  # Python's floor semantics, not Decimal's truncation
                q, r = c.divide_int(a, b), c.remainder(a, b)
                if r != 0 and (r < 0) != (b < 0):
                    q, r = c.subtract(q, 1), c.add(r, b)
                result = q if sym == "//" else r
            else:
                ops = {"+": c.add, "-": c.subtract, "*": c.multiply, "/": c.divide, "**": c.power}
                result = ops[sym](a, b)
        except ArithmeticError:
            raise CalculatorError(f"cannot compute {_show(a)} {sym} {_show(b)}: undefined, or it needs "
                                  f"more than {PRECISION} digits") from None
        return self.bounded(result)

    def call(self, node: ast.Call) -> Decimal:
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        if name not in FUNCTIONS:
            what = f"function {name[:40]!r}" if name else "this call"
            raise CalculatorError(f"{what} is not available; the only functions are {', '.join(FUNCTIONS)}")
        if node.keywords:
            raise CalculatorError(f"keyword arguments are not allowed: write {name}(x, 2), "
                                  f"not {name}(x, n=2)")
        args = [self.eval(a) for a in node.args]
        c = self.ctx
        if name in ("round", "round_half_up") and len(args) in (1, 2):
            places = args[1] if len(args) == 2 else Decimal(0)
            if places != places.to_integral_value(context=c) or not 0 <= places <= MAX_PLACES:
                raise CalculatorError(f"{name} takes a whole number of places from 0 to {MAX_PLACES}")
            mode = ROUND_HALF_UP if name == "round_half_up" else ROUND_HALF_EVEN
            return args[0].quantize(Decimal(1).scaleb(-int(places), c), rounding=mode, context=c)
        if name == "abs" and len(args) == 1:
            return c.abs(args[0])
        if name in ("min", "max", "sum") and args:
            if name == "sum":
                total = Decimal(0)
                for arg in args:
                    total = self.bounded(c.add(total, arg))
                return total
            return min(args) if name == "min" else max(args)
        usage = {"round": "round(x) or round(x, places)", "round_half_up": "round_half_up(x, places)",
                 "abs": "abs(x)"}.get(name, f"{name}(a, b, ...) with at least one number")
        raise CalculatorError(f"wrong number of arguments to {name}; write {usage}")

    def bounded(self, value: Decimal) -> Decimal:
        if not value.is_finite():
            raise CalculatorError("the result is not a finite number")
        if value and not -MAX_MAGNITUDE <= value.adjusted() <= MAX_MAGNITUDE:
            raise CalculatorError(f"a value of about 1e{value.adjusted()} is out of range: nonzero numbers "
                                  f"must be between 1e-{MAX_MAGNITUDE} and 1e{MAX_MAGNITUDE + 1} in size")
        return value


def _format_result(value: Decimal) -> str:
    """Plain digits, no exponent, trailing fractional zeros dropped: equal values read the same."""
    if not value:
        return "0"
    return format(value.normalize(Context(prec=PRECISION)), "f")


class Calculation(TypedDict):
    """What `calculate` gives back: the expression as sent, and its exact value."""

    expression: str
    result: str
    """A decimal string without exponent, trailing zeros after the point dropped."""


@tool(mutates=False)
def calculate(ctx: ToolContext, expression: str) -> Calculation:
    """Exact decimal arithmetic for prices, totals, discounts and tax; use it instead of mental math.

    Numbers are exact decimals (0.1 + 0.2 is exactly 0.3), never floating point. Allowed:
    plain numbers (1250, 19.99, .5, 2.5e3), + - * / and ( ), // (floor division), % (remainder,
    sign of the divisor), ** (power; whole-number exponent from -64 to 64), and the functions
    round(x, places) (half to even, places 0-12; round(x) gives a whole number),
    round_half_up(x, places) (0.125 -> 0.13, the usual rule for money), abs(x), min(a, b, ...),
    max(a, b, ...), sum(a, b, ...). Nothing else: no variables, strings, lists, comparisons,
    currency signs, thousands separators or percent signs (write 20% as 0.2). Limits: 500
    characters; values between 1e-30 and 1e31; division is rounded to 50 significant digits.
    The result is a decimal string without exponent, with trailing zeros after the point dropped
    (2.50 shows as 2.5). Examples: "round_half_up((1299 - 50) * 0.8 * 1.2, 2)",
    "sum(19.99 * 3, 4.50, 12)", "max(0, 250 - 310.5)".

    Args:
        expression: The arithmetic to compute, e.g. "round_half_up(19.99 * 3 * 0.85, 2)".
    """
    try:
        value = evaluate(expression)
    except CalculatorError as err:
        raise ToolError("bad_arguments", str(err)) from None
    return {"expression": expression, "result": _format_result(value)}
