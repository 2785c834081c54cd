// The region-click component (ui/region_clicks.py): read there and given to
// st.components.v2.component; __CONTAINER__ is replaced by the container's key.
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const root = parentElement.getRootNode ? parentElement.getRootNode() : null;
  const host = parentElement.host || (root && root.host) || parentElement;
  const box = host.closest ? host.closest('.st-key-__CONTAINER__') : null;
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
      b.style.cssText = 'display:block;width:100%;text-align:left;border:0;background:none;' +
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
      for (const l of data.layers || []) {
        const el = rect(l.rect, 'ce-layer ce-layer-' + l.layer, -1);
        el.setAttribute('stroke', l.color);
        el.setAttribute('stroke-width', '1.3');
        if (l.layer === 'removed') {
          el.setAttribute('fill', 'rgba(134,142,150,0.35)');
        } else {
          el.setAttribute('fill', 'none');
          el.setAttribute('stroke-dasharray', '4 2');
          el.style.pointerEvents = 'none';
        }
        const t = document.createElementNS(SVG, 'title');
        t.textContent = l.title;
        el.appendChild(t);
        svg.appendChild(el);
      }
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
