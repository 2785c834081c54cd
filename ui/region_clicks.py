"""Click a region of the document → its chunk: one inline ``st.components.v2`` component over the
PDF page image or the rendered text.

On a PDF page the component lays an SVG over the page image (``st.image``, as before): one
transparent rectangle per line of each chunk on the page, and the selected chunks' outlines. The
outline is drawn in the browser, so selecting a chunk no longer redraws the page's PNG (the PNG
is drawn with the tints only, and stays cached while the selection changes). Over the rendered
Markdown or text, a click on a tinted span names the chunks of the span (its ``ce-chunk-N``
classes, or a badge's ``data-index``).

A click on one chunk selects it; a click where several overlap opens a small menu of them, and
the person chooses (the menu names each with its number, which is the choice made visible). The
click comes back as a trigger value ``{"chunk": N}``; :func:`take_click` maps it to the View.

Nothing in the component comes from the document: its HTML and CSS are constants, and its data
are numbers, colours that :class:`~ui.render.Highlight` has checked against ``#rrggbb``, and
labels made here from numbers and escaped (:func:`html.escape`); the script builds every node
with ``createElement`` and ``textContent``, never ``innerHTML``, and loads nothing.

AppTest cannot click inside a component (it shows it as an element of unknown kind): the page
image stays an ``st.image`` and the text stays an ``st.html``, so tests see the page as before,
and :func:`take_click` is tested directly.
"""

from __future__ import annotations

import html
from collections.abc import MutableMapping, Sequence
from typing import Any

import streamlit as st

from explorer.documents.model import Document
from ui import render
from ui.render import darker

KEY = "ce_region_click"
"""The component's key in session state (its trigger value sits there during the rerun)."""

CONTAINER = "ce_page_view"
"""The keyed container that holds the page image (or text) and the component."""

_JS = r"""
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const root = parentElement.getRootNode ? parentElement.getRootNode() : null;
  const host = parentElement.host || (root && root.host) || parentElement;
  const box = host.closest ? host.closest('.st-key-%(container)s') : null;
  // Streamlit calls this again with new data without cleaning up the last call: do it here
  if (typeof host.__ceRegionCleanup === 'function') host.__ceRegionCleanup();
  host.__ceRegionCleanup = null;
  if (!box || !data) return;
  const SVG = 'http://www.w3.org/2000/svg';
  const made = [];
  const off = [];
  const listen = (el, type, fn) => { el.addEventListener(type, fn); off.push(() => el.removeEventListener(type, fn)); };
  let menu = null;
  const closeMenu = () => { if (menu) { menu.remove(); menu = null; } };
  const choose = (chunks, x, y, anchor) => {
    closeMenu();
    if (chunks.length === 1) { setTriggerValue('pick', { chunk: chunks[0] }); return; }
    menu = document.createElement('div');
    menu.className = 'ce-pick-menu';
    menu.setAttribute('role', 'menu');
    menu.style.cssText = 'position:absolute;z-index:1000;background:#fff;border:1px solid #d1d9e0;' +
      'border-radius:6px;box-shadow:0 4px 12px rgba(0,0,0,.15);padding:4px;font:13px/1.4 ' +
      '-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;left:' + x + 'px;top:' + y + 'px';
    const head = document.createElement('div');
    head.textContent = chunks.length + ' chunks overlap here:';
    head.style.cssText = 'color:#59636e;padding:2px 6px';
    menu.appendChild(head);
    for (const c of chunks) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'ce-pick-item';
      b.setAttribute('role', 'menuitem');
      b.dataset.chunk = String(c);
      b.textContent = (data.labels && data.labels[String(c)]) || ('chunk ' + c);
      b.style.cssText = 'display:block;width:100%%;text-align:left;border:0;background:none;' +
        'padding:3px 8px;cursor:pointer;border-radius:4px' +
        (c === data.selected ? ';font-weight:700' : '');
      b.addEventListener('click', (e) => { e.stopPropagation(); closeMenu(); setTriggerValue('pick', { chunk: c }); });
      menu.appendChild(b);
    }
    anchor.appendChild(menu);
  };
  listen(document, 'keydown', (e) => { if (e.key === 'Escape') closeMenu(); });
  if (data.mode === 'pdf') {
    let svg = null, img = null, holder = null, ro = null;
    const place = () => {
      if (!svg || !img) return;
      svg.style.left = img.offsetLeft + 'px'; svg.style.top = img.offsetTop + 'px';
      svg.style.width = img.offsetWidth + 'px'; svg.style.height = img.offsetHeight + 'px';
    };
    const rect = (q, cls, chunk) => {
      const el = document.createElementNS(SVG, 'rect');
      el.setAttribute('x', q[0]); el.setAttribute('y', q[1]);
      el.setAttribute('width', Math.max(q[2] - q[0], 0)); el.setAttribute('height', Math.max(q[3] - q[1], 0));
      el.setAttribute('class', cls);
      el.dataset.chunk = String(chunk);
      return el;
    };
    const onClick = (e) => {
      const b = svg.getBoundingClientRect();
      if (!b.width || !b.height) return;
      const x = (e.clientX - b.left) / b.width * data.width;
      const y = (e.clientY - b.top) / b.height * data.height;
      const hit = [];
      for (const r of data.regions)
        if (r.rects.some((q) => q[0] - 1 <= x && x <= q[2] + 1 && q[1] - 1 <= y && y <= q[3] + 1))
          if (!hit.includes(r.chunk)) hit.push(r.chunk);
      if (!hit.length) { closeMenu(); return; }
      const hb = holder.getBoundingClientRect();
      choose(hit, e.clientX - hb.left + 4, e.clientY - hb.top + 4, holder);
    };
    const attach = () => {
      const found = box.querySelector('[data-testid="stImage"] img');
      if (!found) return;
      if (found === img && svg && svg.isConnected) { place(); return; }
      if (svg) svg.remove();
      if (ro) ro.disconnect();
      img = found; holder = img.parentElement;
      if (getComputedStyle(holder).position === 'static') holder.style.position = 'relative';
      for (const old of holder.querySelectorAll(':scope > .ce-regions')) old.remove();
      svg = document.createElementNS(SVG, 'svg');
      svg.setAttribute('class', 'ce-regions');
      svg.setAttribute('viewBox', '0 0 ' + data.width + ' ' + data.height);
      svg.setAttribute('preserveAspectRatio', 'none');
      svg.dataset.page = String(data.page);
      svg.style.cssText = 'position:absolute;cursor:pointer;overflow:visible';
      for (const r of data.regions)
        for (const q of r.rects) {
          const el = rect(q, 'ce-region', r.chunk);
          el.setAttribute('fill', 'transparent');
          const t = document.createElementNS(SVG, 'title');
          t.textContent = r.title;
          el.appendChild(t);
          svg.appendChild(el);
        }
      for (const o of data.outlines)
        for (const q of o.rects) {
          const el = rect(q, 'ce-outline', o.chunk);
          el.setAttribute('fill', 'none'); el.setAttribute('stroke', o.color);
          el.setAttribute('stroke-width', '1.2');
          el.style.pointerEvents = 'none';
          svg.appendChild(el);
        }
      svg.addEventListener('click', onClick);
      holder.appendChild(svg);
      ro = new ResizeObserver(place);
      ro.observe(img);
      img.addEventListener('load', place);
      place();
    };
    attach();
    const mo = new MutationObserver(attach);
    mo.observe(box, { childList: true, subtree: true });
    const timer = setInterval(attach, 400);
    off.push(() => { mo.disconnect(); clearInterval(timer); if (ro) ro.disconnect(); if (svg) svg.remove(); });
  } else {
    const view = box.querySelector('.ce-doc') ? box : null;
    if (!view) return;
    if (getComputedStyle(view).position === 'static') view.style.position = 'relative';
    listen(view, 'click', (e) => {
      const t = e.target;
      if (!(t instanceof Element)) return;
      if (t.closest('a[href], .ce-pick-menu')) return;
      const hit = [];
      const badge = t.closest('.ce-badge[data-index]');
      if (badge) hit.push(Number(badge.getAttribute('data-index')));
      for (let s = t.closest('.ce-hl'); s; s = s.parentElement ? s.parentElement.closest('.ce-hl') : null)
        for (const cls of s.classList) {
          const m = /^ce-chunk-(\d+)$/.exec(cls);
          if (m && !hit.includes(Number(m[1]))) hit.push(Number(m[1]));
        }
      const known = hit.filter((c) => data.chunks.includes(c));
      if (!known.length) { closeMenu(); return; }
      const vb = view.getBoundingClientRect();
      choose(known, e.clientX - vb.left + 4, e.clientY - vb.top + 4, view);
    });
  }
  const cleanup = () => {
    closeMenu(); for (const f of off) f(); for (const el of made) el.remove();
    if (host.__ceRegionCleanup === cleanup) host.__ceRegionCleanup = null;
  };
  host.__ceRegionCleanup = cleanup;
  return cleanup;
}
""" % {"container": CONTAINER}

_component: Any = None


def _mount() -> Any:
    """The component's mount command, registered once per process."""
    global _component
    if _component is None:
        _component = st.components.v2.component("chunk_explorer.region_click", js=_JS)
    return _component


def _rect(r: Any) -> list[float]:
    return [round(float(r.x0), 2), round(float(r.y0), 2), round(float(r.x1), 2), round(float(r.y1), 2)]


def _hex(color: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in color)


def _label(index: int) -> str:
    return html.escape(f"chunk {int(index)}")


def pdf_data(
    doc: Document,
    page: int,
    width: float,
    height: float,
    tints: Sequence[render.Highlight],
) -> dict[str, Any]:
    """What the component draws over PDF page ``page`` (``width`` × ``height`` pt): each chunk's
    line rectangles on the page (in page points, origin top left, as the image shows it) and the
    outlines of the selected ones. Underlines (evidence phrases) are not regions."""
    layout = doc.layout
    regions: dict[int, list[list[float]]] = {}
    outlines: list[dict[str, Any]] = []
    if layout is not None:
        for h in tints:
            if h.underline:
                continue
            here = [_rect(r) for r in layout.rects(h.start, h.end) if r.page == page]
            if not here:
                continue
            regions.setdefault(h.index, []).extend(here)
            if h.selected:
                outlines.append({"chunk": h.index, "rects": here, "color": _hex(darker(h.color))})
    return {
        "mode": "pdf",
        "page": page,
        "width": round(width, 2),
        "height": round(height, 2),
        "regions": [
            {"chunk": i, "rects": rects, "title": _label(i)} for i, rects in regions.items()
        ],
        "outlines": outlines,
        "labels": {str(i): _label(i) for i in regions},
        "selected": next((o["chunk"] for o in outlines), None),
    }


def text_data(tints: Sequence[render.Highlight], selected: int | None) -> dict[str, Any]:
    """What the component needs over the rendered text: the chunks a click may name."""
    chunks = sorted({h.index for h in tints if not h.underline})
    return {
        "mode": "text",
        "chunks": chunks,
        "labels": {str(i): _label(i) for i in chunks},
        "selected": selected,
    }


def take_click(value: Any, n_chunks: int) -> int | None:
    """The chunk a click names: ``value`` as the browser sent it (``{"chunk": N}``), or None
    when it names no chunk of the ``n_chunks`` shown (the browser's word is not trusted)."""
    if not isinstance(value, dict):
        return None
    chunk = value.get("chunk")
    if isinstance(chunk, bool) or not isinstance(chunk, int):
        return None
    return chunk if 0 <= chunk < n_chunks else None


def strip_selection(tints: Sequence[render.Highlight]) -> list[render.Highlight]:
    """``tints`` as the PNG draws them: none selected (the component outlines the selected)."""
    import dataclasses

    return [dataclasses.replace(h, selected=False) if h.selected else h for h in tints]


def apply_click(state: MutableMapping[str, Any], n_chunks: int) -> int | None:
    """The View change a click makes: the chunk the component's trigger value (in ``state``
    under :data:`KEY`) names becomes the selected chunk (``state["chunk"]``); the page stays,
    since the click was on it. Returns the chunk, or None (and changes nothing) when the value
    names none."""
    result = state.get(KEY)
    value = result.get("pick") if hasattr(result, "get") else None
    chunk = take_click(value, n_chunks)
    if chunk is not None:
        state["chunk"] = chunk
    return chunk


def _on_click(n_chunks: int) -> None:
    apply_click(st.session_state, n_chunks)


def region_clicks(data: dict[str, Any], n_chunks: int) -> None:
    """Mount the component (inside the :data:`CONTAINER` container, after the image or text)."""
    _mount()(key=KEY, data=data, height=0, on_pick_change=lambda: _on_click(n_chunks))
