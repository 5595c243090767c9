"""The time tool, in the pet's time zone and the person's language."""

from __future__ import annotations

import datetime as dt
from typing import Callable

from pet.tools.registry import Label, Tool, ToolContext

Clock = Callable[[], dt.datetime]

_ZH_WEEKDAYS = "一二三四五六日"


def system_clock() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def format_local_time(moment: dt.datetime, language: str = "en") -> str:
    """"Tuesday 2026-12-01 09:30 (Asia/Shanghai, UTC+08:00)", or in Chinese
    "2026年12月1日 星期二 09:30（Asia/Shanghai，UTC+08:00）"."""
    offset = moment.strftime("%z")
    zone = getattr(moment.tzinfo, "key", None) or moment.tzname() or ""
    utc = f"UTC{offset[:3]}:{offset[3:]}"
    if language == "zh":
        return (f"{moment.year}年{moment.month}月{moment.day}日 星期{_ZH_WEEKDAYS[moment.weekday()]} "
                f"{moment:%H:%M}（{zone}，{utc}）")
    return f"{moment.strftime('%A %Y-%m-%d %H:%M')} ({zone}, {utc})"


def clock_tool(zone: Callable[[], dt.tzinfo], clock: Clock = system_clock) -> Tool:
    def get_current_time(ctx: ToolContext) -> str:
        """Get the current local date, weekday and time."""
        return format_local_time(clock().astimezone(zone()), ctx.language)

    return Tool.from_function(
        get_current_time, reads_outside=False,
        label=Label(en=("checking the time", "checked the time"), zh=("正在看时间", "看过时间了")),
    )
