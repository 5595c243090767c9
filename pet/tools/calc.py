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
from pet.tools.registry import Label, Tool, ToolContext

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
_TOO_LARGE = "The result is too large to compute."
_TOO_LARGE_ZH = "结果太大，算不了。"

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
        raise ToolArgumentError("round(x, n) needs a whole number of digits n.", zh="round(x, n) 的 n 要是整数。")
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


def calculate(expression: str, language: str = "en") -> str:
    """Evaluate an arithmetic expression and return the result, e.g. "(12 + 3) * 4".

    Supports + - * / // % ** (or ^), parentheses, pi, e and the functions
    sqrt, abs, round, min, max, floor, ceil, log, log10, sin, cos, tan
    (angles in radians).

    Args:
        expression: the arithmetic to work out, e.g. "sqrt(2) * 10" or "3 × 4".
    """
    # `language` words a huge result ("about …"); errors carry both languages (ToolError.zh)
    if not isinstance(expression, str):
        raise ToolArgumentError("expression must be text, e.g. \"2 + 3 * 4\".", zh="算式要是文字，比如“2 + 3 * 4”。")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolArgumentError(
            f"The expression is {len(expression)} characters long; keep it under {MAX_EXPRESSION_CHARS}.",
            zh=f"算式有{len(expression)}个字符，请少于{MAX_EXPRESSION_CHARS}个。",
        )
    source = _normalize(expression)
    if not source:
        raise ToolArgumentError("The expression is empty; give one like \"2 + 3 * 4\".",
                                zh="算式是空的，请给一个，比如“2 + 3 * 4”。")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ToolArgumentError(
            f"Could not read {expression.strip()!r} as arithmetic; "
            "use numbers, + - * / ^, parentheses and functions like sqrt(2).",
            zh=f"看不懂“{expression.strip()}”这个算式；请用数字、+ - * / ^、括号和 sqrt(2) 这样的函数。",
        ) from None
    return format_number(_evaluate(tree.body), language)


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
        raise ToolArgumentError(f"{value!r} is not a number; only numbers are allowed.",
                                zh=f"{value!r} 不是数字；算式里只能有数字。")
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        op = _BINARY_OPS.get(type(node.op))
        if op is None:
            raise ToolArgumentError("Only + - * / // % and ** are allowed.", zh="只能用 + - * / // % 和 **。")
        return _checked(_compute(op, left, right))
    if isinstance(node, ast.UnaryOp):
        unary = _UNARY_OPS.get(type(node.op))
        if unary is None:
            raise ToolArgumentError("Only + and - may stand before a number.", zh="数字前面只能是 + 或 -。")
        return unary(_evaluate(node.operand))
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ToolArgumentError(f"Unknown name {node.id!r}; only pi and e are known.",
                                zh=f"不认识 {node.id!r}；只认识 pi 和 e。")
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Tuple):
        raise ToolArgumentError("Give one expression; write decimals as 1.5, not 1,5.",
                                zh="请只给一个算式；小数写成 1.5，不要写成 1,5。")
    raise ToolArgumentError(
        f"{type(node).__name__} is not allowed; use numbers, operators and math functions.",
        zh=f"不能用 {type(node).__name__}；请只用数字、运算符和数学函数。",
    )


def _call(node: ast.Call) -> Number:
    if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
        allowed = ", ".join(_FUNCTIONS)
        raise ToolArgumentError(f"Only these functions are allowed: {allowed}.", zh=f"只能用这些函数：{allowed}。")
    name = node.func.id
    if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise ToolArgumentError(f"Give {name}() plain numbers, e.g. {name}(2).", zh=f"{name}() 里请直接写数字，比如 {name}(2)。")
    if not node.args:
        raise ToolArgumentError(f"{name}() needs a number, e.g. {name}(2).", zh=f"{name}() 需要一个数字，比如 {name}(2)。")
    args = [_evaluate(arg) for arg in node.args]
    try:
        return _checked(_FUNCTIONS[name](*args))
    except TypeError:
        raise ToolArgumentError(f"Wrong number of values for {name}().", zh=f"{name}() 的参数个数不对。") from None
    except (ValueError, ZeroDivisionError):
        raise ToolArgumentError(f"{name}() is not defined for {_show(args)}.",
                                zh=f"{name}() 对 {_show(args)} 没有定义。") from None
    except OverflowError:
        raise ToolArgumentError(f"The result of {name}() is too large.", zh=f"{name}() 的结果太大了。") from None


def _compute(op: Callable[[Number, Number], Number], left: Number, right: Number) -> Number:
    try:
        return op(left, right)
    except ZeroDivisionError:
        raise ToolArgumentError("Division by zero has no answer.", zh="除以零没有答案。") from None
    except OverflowError:
        raise ToolArgumentError(_TOO_LARGE, zh=_TOO_LARGE_ZH) from None


def _power(base: Number, exponent: Number) -> Number:
    if abs(exponent) > MAX_EXPONENT:
        raise ToolArgumentError(f"Exponents above {MAX_EXPONENT} are not allowed.", zh=f"指数不能超过{MAX_EXPONENT}。")
    # Estimate the size of the result from logs before computing it.
    if base not in (0, 1, -1) and exponent > 0:
        magnitude = _log10_abs(base) * exponent
        if isinstance(base, int) and isinstance(exponent, int):
            if magnitude > MAX_INT_DIGITS:
                raise ToolArgumentError(f"The result would have more than {MAX_INT_DIGITS} digits.",
                                        zh=f"结果会超过{MAX_INT_DIGITS}位。")
        elif magnitude > math.log10(MAX_FLOAT):
            raise ToolArgumentError(_TOO_LARGE, zh=_TOO_LARGE_ZH)
    result = _compute(lambda a, b: a**b, base, exponent)
    if isinstance(result, complex):
        raise ToolArgumentError("A negative number to a fractional power has no real answer.",
                                zh="负数的分数次方没有实数答案。")
    return _checked(result)


def _log10_abs(x: Number) -> float:
    # math.log10 accepts ints of any size, unlike converting them to float.
    return math.log10(abs(x))


def _checked(value: Number) -> Number:
    """Refuse results too large to be useful or cheap to keep computing with."""
    if isinstance(value, float):
        if math.isnan(value):
            raise ToolArgumentError("The result is not a number.", zh="结果不是一个数。")
        if math.isinf(value) or abs(value) > MAX_FLOAT:
            raise ToolArgumentError(_TOO_LARGE, zh=_TOO_LARGE_ZH)
    elif value.bit_length() * _LOG10_2 > MAX_INT_DIGITS:
        raise ToolArgumentError(f"The result would have more than {MAX_INT_DIGITS} digits.",
                                zh=f"结果会超过{MAX_INT_DIGITS}位。")
    return value


def format_number(value: Number, language: str = "en") -> str:
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
        if language == "zh":
            return f"约 {sign}{mantissa}e+{exponent}（共 {exponent + 1} 位）"
        return f"about {sign}{mantissa}e+{exponent} ({exponent + 1} digits)"
    text = f"{value:.{SIGNIFICANT_DIGITS}g}"
    return "0" if text == "-0" else text


def _show(args: list[Number]) -> str:
    return ", ".join(format_number(a) for a in args)


def calc_tool() -> Tool:
    def calculate_for(expression: str, ctx: ToolContext) -> str:
        return calculate(expression, ctx.language)

    calculate_for.__doc__ = calculate.__doc__
    return Tool.from_function(
        calculate_for, name="calculate", reads_outside=False,
        label=Label(en=("calculating", "calculated"), zh=("正在计算", "算好了")),
    )
