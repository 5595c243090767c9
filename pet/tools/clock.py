"""The time tool, in the pet's time zone and the person's language."""

from __future__ import annotations

import datetime as dt
from typing import Callable

from pet.tools.registry import Label, Tool, ToolContext

Clock = Callable[[], dt.datetime]

_ZH_WEEKDAYS = "一二三四五六日"

#: zones a Chinese reader knows by a city's name; any other is named by its key and offset
_ZH_ZONES = {
    "Asia/Shanghai": "北京时间", "Asia/Chongqing": "北京时间", "Asia/Harbin": "北京时间", "PRC": "北京时间",
    "Asia/Hong_Kong": "香港时间", "Asia/Macau": "澳门时间", "Asia/Taipei": "台北时间",
    "Asia/Singapore": "新加坡时间", "Asia/Kuala_Lumpur": "吉隆坡时间", "Asia/Tokyo": "东京时间",
    "Asia/Seoul": "首尔时间", "Australia/Sydney": "悉尼时间", "Europe/London": "伦敦时间",
    "Europe/Paris": "巴黎时间", "Europe/Berlin": "柏林时间", "America/New_York": "纽约时间",
    "America/Los_Angeles": "洛杉矶时间", "America/Vancouver": "温哥华时间", "America/Toronto": "多伦多时间",
    "UTC": "UTC", "Etc/UTC": "UTC", "Etc/GMT": "UTC", "GMT": "UTC", "Etc/Universal": "UTC", "Universal": "UTC",
    "Etc/Zulu": "UTC", "Zulu": "UTC",
}


def system_clock() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def format_local_time(moment: dt.datetime, language: str = "en") -> str:
    """"Tuesday 2026-12-01 09:30 (Asia/Shanghai, UTC+08:00)", or in Chinese
    "2026年12月1日 星期二 09:30（北京时间）" (a zone without a Chinese name: "（America/Denver，UTC-07:00）")."""
    offset = moment.strftime("%z")
    zone = getattr(moment.tzinfo, "key", None) or moment.tzname() or ""
    utc = f"UTC{offset[:3]}:{offset[3:]}"
    if language == "zh":
        return (f"{moment.year}年{moment.month}月{moment.day}日 星期{_ZH_WEEKDAYS[moment.weekday()]} "
                f"{moment:%H:%M}（{_ZH_ZONES.get(zone) or f'{zone}，{utc}'}）")
    return f"{moment.strftime('%A %Y-%m-%d %H:%M')} ({zone}, {utc})"


def clock_tool(zone: Callable[[], dt.tzinfo], clock: Clock = system_clock) -> Tool:
    def get_current_time(ctx: ToolContext) -> str:
        """Get the current local date, weekday and time."""
        return format_local_time(clock().astimezone(zone()), ctx.language)

    return Tool.from_function(
        get_current_time, reads_outside=False,
        label=Label(en=("checking the time", "checked the time"), zh=("正在看时间", "看过时间了")),
    )
