#!/usr/bin/env python3
"""The soak tier's samples (target/soak/samples.csv, written by ServiceSoakIT) as one PNG: resident memory, heap after
a full collection and threads of each instance, and the callbacks' p99, over the run, with the fault windows shaded.

    python3 deploy/bench/soak-plot.py [samples.csv] [out.png]

Needs matplotlib: Debian's python3-matplotlib (apt-get install python3-matplotlib) is for Debian's /usr/bin/python3.
"""
import csv
import sys
from collections import defaultdict

try:
    import matplotlib
except ImportError:
    sys.exit("soak-plot: no matplotlib for " + sys.executable + "; apt-get install python3-matplotlib and run it with "
             "/usr/bin/python3")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend is chosen before pyplot loads)

PANELS = [("rss_mb", "RSS (MB)"), ("heap_after_gc_mb", "heap after GC (MB)"), ("threads", "threads"),
          ("p99_ms", "callbacks' p99 (ms)")]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fault_windows(rows):
    """(start, end, fault) for each run of consecutive samples taken while a fault was under way."""
    windows = []
    seconds = sorted({(int(r["second"]), r["fault"]) for r in rows})
    current = None
    for second, fault in seconds:
        if fault and (current is None or current[2] != fault):
            current = [second, second, fault]
            windows.append(current)
        elif fault:
            current[1] = second
        else:
            current = None
    return windows


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "target/soak/samples.csv"
    target = sys.argv[2] if len(sys.argv) > 2 else source.rsplit(".", 1)[0] + ".png"
    rows = read(source)
    windows = fault_windows(rows)
    fig, axes = plt.subplots(len(PANELS), 1, figsize=(11, 10), sharex=True)
    for ax, (column, label) in zip(axes, PANELS):
        series = defaultdict(lambda: ([], []))
        for r in rows:
            if not r[column]:
                continue
            # p99 is the whole service's, written on each instance's row: plotted once.
            name = "all" if column == "p99_ms" else r["instance"] + " (start " + r["incarnation"] + ")"
            xs, ys = series[name]
            if column == "p99_ms" and xs and xs[-1] == int(r["second"]) / 60:
                continue
            xs.append(int(r["second"]) / 60)
            ys.append(float(r[column]))
        for name, (xs, ys) in sorted(series.items()):
            ax.plot(xs, ys, label=name, linewidth=1)
        for start, end, fault in windows:
            ax.axvspan(start / 60, (end + 10) / 60, color="tab:red", alpha=0.12, linewidth=0)
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        if column != "p99_ms":
            ax.legend(loc="lower right", fontsize="small")
    for start, _, fault in windows:
        axes[0].annotate(fault.lower().replace("_", " "), (start / 60, 0), fontsize=6, rotation=90, va="bottom")
    axes[-1].set_xlabel("minutes since the traffic started (shaded: a fault and its recovery)")
    fig.suptitle("pay-callback soak: " + source)
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    print(target)


if __name__ == "__main__":
    main()
