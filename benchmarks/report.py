"""The tables: gradient time over the forward's, absolute times, peak memory over the
forward's, and s2s_ad's first call and forward mode; Markdown or aligned text."""

GRADIENTS = ["hand-written", "s2s_ad", "autograd", "jax", "jax.jit", "torch", "tangent"]
NUMPY_BASED = ["hand-written", "s2s_ad", "autograd", "tangent", "s2s_ad.jvp", "s2s_ad.hvp"]


def _ms(seconds):
    if seconds >= 1:
        return f"{seconds:.3g} s"
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"


def _bytes(n):
    return f"{n / 2**20:.3g} MiB" if n >= 2**20 else f"{n / 2**10:.3g} KiB"


def _cell(row, name, value):
    if name in row.status:
        return row.status[name]
    return value(row) if value(row) is not None else "-"


def _over_forward(row, name, table):
    if name not in table or "forward" not in table or not table["forward"]:
        return None
    return f"{table[name] / table['forward']:.2f}x"


def ratio_table(rows, contenders):
    header = ["workload", "forward", *contenders, "s2s_ad / hand-written"]
    body = []
    for row in rows:
        t = row.times
        ratio = f"{t['s2s_ad'] / t['hand-written']:.2f}x" if {"s2s_ad", "hand-written"} <= t.keys() else "-"
        body.append([row.name, _ms(t["forward"]) if "forward" in t else "-",
                     *[_cell(row, c, lambda r, c=c: _over_forward(r, c, r.times)) for c in contenders],
                     ratio])
    return header, body


def time_table(rows, contenders):
    header = ["workload", "forward", *contenders]
    body = [[row.name, *[_cell(row, c, lambda r, c=c: _ms(r.times[c]) if c in r.times else None)
                         for c in ["forward", *contenders]]] for row in rows]
    return header, body


def memory_table(rows, contenders):
    header = ["workload", "forward peak", *contenders]
    body = [[row.name, _bytes(row.memory["forward"]) if "forward" in row.memory else "-",
             *[_cell(row, c, lambda r, c=c: _over_forward(r, c, r.memory)) for c in contenders]]
            for row in rows]
    return header, body


def s2s_table(rows):
    header = ["workload", "s2s_ad first call (fresh process)", "of which transform",
              "s2s_ad.jvp / forward",
              "s2s_ad.hvp / forward", "jax.jit compile"]
    body = []
    for row in rows:
        first, compile_ = row.notes.get("s2s_ad first call"), row.notes.get("jax.jit compile")
        transform = (_ms(first - row.times["s2s_ad"])
                     if isinstance(first, float) and "s2s_ad" in row.times else "-")
        body.append([row.name, _ms(first) if isinstance(first, float) else first or "-", transform,
                     *[_cell(row, c, lambda r, c=c: _over_forward(r, c, r.times))
                       for c in ("s2s_ad.jvp", "s2s_ad.hvp")],
                     _ms(compile_) if isinstance(compile_, float) else "-"])
    return header, body


def format_table(header, body, markdown):
    if markdown:
        lines = [header, ["---"] * len(header), *body]
        return "\n".join("| " + " | ".join(map(str, line)) + " |" for line in lines)
    widths = [max(len(str(line[i])) for line in [header, *body]) for i in range(len(header))]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(line, widths)).rstrip()
                     for line in [header, *body])


def report(rows, markdown=False, memory=True):
    shown = [c for c in GRADIENTS if any(c in r.times or c in r.status for r in rows)]
    sections = [("Gradient time / forward time (medians)", ratio_table(rows, shown)),
                ("Median time per call", time_table(rows, shown + ["s2s_ad.jvp", "s2s_ad.hvp"])),
                ("s2s_ad: first call, forward mode; jax.jit compile", s2s_table(rows))]
    if memory:
        numpy_based = [c for c in NUMPY_BASED if any(c in r.memory or c in r.status for r in rows)]
        sections.insert(2, ("Peak memory (tracemalloc) / forward's peak", memory_table(rows, numpy_based)))
    text = []
    for title, (header, body) in sections:
        text += [f"### {title}" if markdown else title, "", format_table(header, body, markdown), ""]
    problems = [p for r in rows for p in r.problems]
    if problems:
        text += ["Not timed:", ""] + [f"- {p}" for p in problems]
    return "\n".join(text)
