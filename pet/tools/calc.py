"""A safe calculator tool: arithmetic only, read by walking a whitelisted AST.

Nothing here calls eval, exec or compile; a node that is not on the list is
refused. Sizes are checked before computing so `9**9**9` cannot hang the pet.
"""

from __future__ import annotations

import ast
import math
import re
import unicodedata
from collections.abc import Callable
from typing import Union

from pet.errors import ToolArgumentError
from pet.tools.registry import Label, Tool

Number = Union[int, float]

MAX_EXPRESSION_CHARS = 200
MAX_EXPONENT = 1000
#: larger integer results are refused (10,000 decimal digits)
MAX_INT_DIGITS = 10_000
#: larger float results are refused
MAX_FLOAT = 1e300
#: integers with more digits are shown in scientific notation
MAX_EXACT_DIGITS = 1000
SIGNIFICANT_DIGITS = 12

_LOG10_2 = math.log10(2)

_BINARY_OPS: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}
_UNARY_OPS: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: lambda a: +a,
    ast.USub: lambda a: -a,
}


def _round(x: Number, ndigits: Number | None = None) -> Number:
    if ndigits is None:
        return round(x)
    if not isinstance(ndigits, int):
        raise ToolArgumentError("round(x, n) needs a whole number of digits n.")
    return round(x, ndigits)


def _log(x: Number, base: Number | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


_FUNCTIONS: dict[str, Callable[..., Number]] = {
    "sqrt": math.sqrt, "abs": abs, "round": _round,
    "min": lambda *a: min(a), "max": lambda *a: max(a),
    "floor": math.floor, "ceil": math.ceil, "log": _log, "log10": math.log10,
    "sin": math.sin, "cos": math.cos, "tan": math.tan,
}
_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}

# "3 x 4" and "3x4": an x between numbers means times.
_TIMES_X = re.compile(r"(?<=[\d.)])\s*[xX]\s*(?=[\d.(])")
# "1,234,567": commas that group thousands (only used when no function call
# could need commas between arguments).
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression and return the result, e.g. "(12 + 3) * 4".

    Supports + - * / // % ** (or ^), parentheses, pi, e and the functions
    sqrt, abs, round, min, max, floor, ceil, log, log10, sin, cos, tan
    (angles in radians).

    Args:
        expression: the arithmetic to work out, e.g. "sqrt(2) * 10" or "3 × 4".
    """
    if not isinstance(expression, str):
        raise ToolArgumentError("expression must be text, e.g. \"2 + 3 * 4\".")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolArgumentError(
            f"The expression is {len(expression)} characters long; "
            f"keep it under {MAX_EXPRESSION_CHARS}."
        )
    source = _normalize(expression)
    if not source:
        raise ToolArgumentError("The expression is empty; give one like \"2 + 3 * 4\".")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ToolArgumentError(
            f"Could not read {expression.strip()!r} as arithmetic; "
            "use numbers, + - * / ^, parentheses and functions like sqrt(2)."
        ) from None
    return format_number(_evaluate(tree.body))


def _normalize(expression: str) -> str:
    """Turn human ways of writing arithmetic into Python syntax."""
    # NFKC folds full-width digits and operators: "（１２＋３）" -> "(12+3)".
    text = unicodedata.normalize("NFKC", expression).strip()
    text = text.replace("×", "*").replace("÷", "/").replace("−", "-").replace("^", "**")
    text = text.rstrip("=? \t\n")
    text = _TIMES_X.sub(_times, text)
    if not re.search(r"[A-Za-z]", text):
        text = _THOUSANDS.sub("", text)
    return text


def _times(match: re.Match[str]) -> str:
    text, start = match.string, match.start()
    # Keep "0x1F": a hex literal, not zero times 1F.
    is_hex = (
        match.group() in ("x", "X")
        and text[start - 1] == "0"
        and (start < 2 or not (text[start - 2].isdigit() or text[start - 2] == "."))
    )
    return match.group() if is_hex else "*"


def _evaluate(node: ast.AST) -> Number:
    if isinstance(node, ast.Constant):
        value = node.value
        # bool is an int subclass; complex numbers are not arithmetic here.
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _checked(value)
        raise ToolArgumentError(f"{value!r} is not a number; only numbers are allowed.")
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        op = _BINARY_OPS.get(type(node.op))
        if op is None:
            raise ToolArgumentError("Only + - * / // % and ** are allowed.")
        return _checked(_compute(op, left, right))
    if isinstance(node, ast.UnaryOp):
        unary = _UNARY_OPS.get(type(node.op))
        if unary is None:
            raise ToolArgumentError("Only + and - may stand before a number.")
        return unary(_evaluate(node.operand))
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ToolArgumentError(f"Unknown name {node.id!r}; only pi and e are known.")
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Tuple):
        raise ToolArgumentError("Give one expression; write decimals as 1.5, not 1,5.")
    raise ToolArgumentError(
        f"{type(node).__name__} is not allowed; use numbers, operators and math functions."
    )


def _call(node: ast.Call) -> Number:
    if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
        allowed = ", ".join(_FUNCTIONS)
        raise ToolArgumentError(f"Only these functions are allowed: {allowed}.")
    name = node.func.id
    if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise ToolArgumentError(f"Give {name}() plain numbers, e.g. {name}(2).")
    if not node.args:
        raise ToolArgumentError(f"{name}() needs a number, e.g. {name}(2).")
    args = [_evaluate(arg) for arg in node.args]
    try:
        return _checked(_FUNCTIONS[name](*args))
    except TypeError:
        raise ToolArgumentError(f"Wrong number of values for {name}().") from None
    except (ValueError, ZeroDivisionError):
        raise ToolArgumentError(f"{name}() is not defined for {_show(args)}.") from None
    except OverflowError:
        raise ToolArgumentError(f"The result of {name}() is too large.") from None


def _compute(op: Callable[[Number, Number], Number], left: Number, right: Number) -> Number:
    try:
        return op(left, right)
    except ZeroDivisionError:
        raise ToolArgumentError("Division by zero has no answer.") from None
    except OverflowError:
        raise ToolArgumentError("The result is too large to compute.") from None


def _power(base: Number, exponent: Number) -> Number:
    if abs(exponent) > MAX_EXPONENT:
        raise ToolArgumentError(f"Exponents above {MAX_EXPONENT} are not allowed.")
    # Estimate the size of the result from logs before computing it.
    if base not in (0, 1, -1) and exponent > 0:
        magnitude = _log10_abs(base) * exponent
        if isinstance(base, int) and isinstance(exponent, int):
            if magnitude > MAX_INT_DIGITS:
                raise ToolArgumentError(
                    f"The result would have more than {MAX_INT_DIGITS} digits."
                )
        elif magnitude > math.log10(MAX_FLOAT):
            raise ToolArgumentError("The result is too large to compute.")
    result = _compute(lambda a, b: a**b, base, exponent)
    if isinstance(result, complex):
        raise ToolArgumentError("A negative number to a fractional power has no real answer.")
    return _checked(result)


def _log10_abs(x: Number) -> float:
    # math.log10 accepts ints of any size, unlike converting them to float.
    return math.log10(abs(x))


def _checked(value: Number) -> Number:
    """Refuse results too large to be useful or cheap to keep computing with."""
    if isinstance(value, float):
        if math.isnan(value):
            raise ToolArgumentError("The result is not a number.")
        if math.isinf(value) or abs(value) > MAX_FLOAT:
            raise ToolArgumentError("The result is too large to compute.")
    elif value.bit_length() * _LOG10_2 > MAX_INT_DIGITS:
        raise ToolArgumentError(f"The result would have more than {MAX_INT_DIGITS} digits.")
    return value


def format_number(value: Number) -> str:
    """Show a result the way a person writes it: 4, 0.3, 1.41421356237."""
    if isinstance(value, int):
        if value.bit_length() * _LOG10_2 < MAX_EXACT_DIGITS:
            return str(value)
        # str() of a huge int is slow (and limited); show the leading digits.
        exponent = math.floor(_log10_abs(value))
        lead = abs(value) // 10 ** (exponent - SIGNIFICANT_DIGITS + 1)
        # The float log may be off by one near a power of ten; fix the digits.
        while lead >= 10**SIGNIFICANT_DIGITS:
            lead //= 10
            exponent += 1
        while lead < 10 ** (SIGNIFICANT_DIGITS - 1):
            exponent -= 1
            lead = abs(value) // 10 ** (exponent - SIGNIFICANT_DIGITS + 1)
        mantissa = f"{lead / 10 ** (SIGNIFICANT_DIGITS - 1):.{SIGNIFICANT_DIGITS}g}"
        sign = "-" if value < 0 else ""
        return f"about {sign}{mantissa}e+{exponent} ({exponent + 1} digits)"
    text = f"{value:.{SIGNIFICANT_DIGITS}g}"
    return "0" if text == "-0" else text


def _show(args: list[Number]) -> str:
    return ", ".join(format_number(a) for a in args)


def calc_tool() -> Tool:
    return Tool.from_function(
        calculate, reads_outside=False,
        label=Label(en=("calculating", "calculated"), zh=("正在计算", "算好了")),
    )
