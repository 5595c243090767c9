"""The time tool, in the pet's time zone."""

from __future__ import annotations

import datetime as dt
from typing import Callable

from pet.tools.registry import Label, Tool

Clock = Callable[[], dt.datetime]


def system_clock() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def format_local_time(moment: dt.datetime) -> str:
    offset = moment.strftime("%z")
    zone = getattr(moment.tzinfo, "key", None) or moment.tzname() or ""
    return f"{moment.strftime('%A %Y-%m-%d %H:%M')} ({zone}, UTC{offset[:3]}:{offset[3:]})"


def clock_tool(zone: Callable[[], dt.tzinfo], clock: Clock = system_clock) -> Tool:
    def get_current_time() -> str:
        """Get the current local date, weekday and time."""
        return format_local_time(clock().astimezone(zone()))

    return Tool.from_function(
        get_current_time, reads_outside=False,
        label=Label(en=("checking the time", "checked the time"), zh=("正在看时间", "看过时间了")),
    )
