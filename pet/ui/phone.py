"""The page on a phone: CSS where Gradio's defaults waste a small screen, and
the "Open on your phone" panel (LAN mode only) with the address as a QR code."""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

from pet.app import App

# Below 640 px wide: the header shrinks to one short line of face and name, the
# chat fills what is left of the screen with its box in view, and text fields
# use 16 px type (a phone zooms the page into anything smaller on focus).
# It goes into the page's <head> as it is: Gradio rewrites the css= argument's
# media rules to apply only inside its content box, not to the page margins.
PHONE_HEAD = """<style>
.pet-phone-panel svg { width: 220px; max-width: 100%; height: auto; display: block; margin: 8px 0; }
.pet-phone-panel a { word-break: break-all; }
@media (max-width: 640px) {
  .gradio-container .main.app { padding: 4px 6px !important; }
  .pet-header { flex-direction: column !important; gap: 6px !important; }
  .pet-header > * { width: 100% !important; min-width: 0 !important; }
  .pet-growth-card { padding: 6px 8px !important; max-width: none !important; gap: 8px !important; }
  .pet-growth-card img { width: 48px !important; height: 48px !important; }
  .pet-growth-card > div > div:nth-child(n+3) { display: none; }
  /* the card names the pet; the brain line and the QR panel (for opening
     the page on a phone) are for the computer's screen */
  .pet-status-line, .pet-phone-panel { display: none !important; }
  .pet-picker { padding: 4px 8px !important; }
  .pet-picker [data-testid="block-info"] { display: none; }
  #pet-chatbot { height: calc(100dvh - 290px) !important; min-height: 260px; }
  textarea, input { font-size: 16px !important; }
  /* the technical details are for the computer's screen too */
  .pet-advanced, #pet-brain-details { display: none !important; }
  /* tables keep the columns that matter, full width: a memory's number,
     text and state; a reminder's number, time and text; a trace step's
     number, kind and what it did. A Dataframe draws its header cells with
     data-heading, its rows as cells with data-col (and a hidden sizing row). */
  .pet-memory-table :is([data-heading="2"], [data-heading="3"], [data-heading="5"],
                        [data-col="2"], [data-col="3"], [data-col="5"], td:nth-child(3), td:nth-child(4), td:nth-child(6)),
  .pet-reminder-table :is([data-heading="2"], [data-col="2"], td:nth-child(3)),
  .pet-trace-summary th:nth-child(n+4), .pet-trace-summary td:nth-child(n+4) { display: none !important; }
  .pet-memory-table table, .pet-reminder-table table, .pet-memory-table .virtual-body,
  .pet-reminder-table .virtual-body { width: 100% !important; }
  .pet-memory-table :is(th, td, [role="gridcell"]), .pet-reminder-table :is(th, td, [role="gridcell"]) {
    min-width: 0 !important; max-width: none !important; }
  .pet-memory-table :is([data-heading="0"], [data-col="0"], td:nth-child(1)),
  .pet-reminder-table :is([data-heading="0"], [data-col="0"], td:nth-child(1)) { width: 14% !important; flex: 0 0 14% !important; }
  .pet-memory-table :is([data-heading="1"], [data-col="1"], td:nth-child(2)) { width: 60% !important; flex: 0 0 60% !important; }
  .pet-memory-table :is([data-heading="4"], [data-col="4"], td:nth-child(5)) { width: 26% !important; flex: 0 0 26% !important; }
  .pet-reminder-table :is([data-heading="1"], [data-col="1"], td:nth-child(2)) { width: 36% !important; flex: 0 0 36% !important; }
  .pet-reminder-table :is([data-heading="3"], [data-col="3"], td:nth-child(4)) { width: 50% !important; flex: 0 0 50% !important; }
  .pet-trace-summary td { word-break: break-word; }
}
</style>"""


def _port_of(request: Any, default: int) -> int:
    """The port the person's browser used (the server may listen on port 0 in tests)."""
    host = (getattr(request, "headers", None) or {}).get("host", "")
    _, colon, port = host.rpartition(":")
    return int(port) if colon and port.isdigit() else default


def phone_panel_html(app: App, request: gr.Request | None) -> str:
    """The LAN address, its QR code and a sign-out link; nothing for a request
    the gate did not sign in."""
    if request is None or not getattr(request, "username", None):
        return ""
    from pet.api.lan import phone_urls, qr_svg  # LAN mode only

    urls = phone_urls(_port_of(request, app.settings.port))
    if not urls:
        return (
            "<p>No network address found. Connect this computer to the same Wi-Fi as the phone "
            "and restart the pet. 没找到局域网地址：请把电脑连上和手机相同的 Wi-Fi 后重启。</p>"
        )
    first = html.escape(urls[0])
    others = "".join(f"<li><a href='{html.escape(u)}'>{html.escape(u)}</a></li>" for u in urls[1:])
    return (
        "<p>Scan with the phone's camera (same Wi-Fi), accept the certificate warning once, "
        "and sign in with the pet's password. "
        "用手机相机扫码（同一 Wi-Fi），接受一次证书提示，再输入密码。</p>"
        f"{qr_svg(urls[0])}<p><a href='{first}'>{first}</a></p>"
        + (f"<p>Other addresses of this computer:</p><ul>{others}</ul>" if others else "")
        + "<p><a href='/logout'>Sign out / 退出登录</a></p>"
    )


def build_phone_panel(app: App) -> None:
    """A closed panel under the header; built only in LAN mode."""
    if not app.settings.lan:
        return
    with gr.Accordion(
        "📱 Open on your phone / 在手机上打开", open=False, elem_classes=["pet-phone-panel"]
    ) as panel:
        shown = gr.HTML(elem_id="pet-phone-qr")

    def fill(request: gr.Request) -> str:
        return phone_panel_html(app, request)

    # Filled when opened: the addresses are read then, and the request says
    # who asked and by which port.
    panel.expand(fill, None, shown, api_visibility="private")
