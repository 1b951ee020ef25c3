#!/usr/bin/python3
"""Issues 17 and 35: does `npgpu report` name the protocol switches that are there, and nothing else?

1. Planted switches: Open MPI's eager limit of the shared-memory transport (btl_vader_eager_limit,
   `--mca btl self,vader`) and of TCP (btl_tcp_eager_limit, `--mca btl tcp,self`), set to each of
   --limits (by default every NetPIPE size class, n and 1.5 n, from 1 KiB to 64 KiB); mpi
   pingpong, --upper 256K, default trial time, --launches launches each. A launch
   finds the switch when its report names a break within one NetPIPE step (a factor 1.5) of the
   limit; it names the switch when it does, or when the report's set switches (Open MPI's size
   settings, which npgpu reads from the MPI through MPI_T) hold the planted limit, with the step the
   curve shows there. A break that does not move with the limit is real when every launch of that
   transport and limit has one within a factor 1.5 of it, or when the report says which of the
   MPI's size settings it probably is (explained); any other break is false. Open MPI 4.1 takes any of these
   limits; vader's has a ceiling that ompi_info does not print: with its defaults (a 4 MiB
   btl_vader_segment_size holding btl_vader_free_list_num = 8 eager fragments) 489472 B still
   runs and 489856 B makes vader decline, so MPI_Init fails with "unable to reach each other".
2. Curves with no switch: memcpy (one rank, pingpong), raw tcp over loopback, and raw tcp between
   two namespaced hosts whose link tc limits to --rate Mbit/s (tests/multihost/virtual_cluster.sh,
   always torn down; skipped where it cannot run). Breaks found in every launch are features of the
   path (named where a cache size, the MTU or a socket buffer explains them); the rest are false.

    bench/switches.py OUT_DIR [--build build] [--launches 3] [--limits 1K,1536,2K,3K,...,48K,64K]
                      [--rate 400] [--quiet 0.25] [--quiet-wait 60] [--busy-retries 2] [--reuse]

Before each launch the bench waits (up to --quiet-wait seconds) until the other work on this
2-core machine keeps the cores under --quiet busy, and logs what it found and the share of the
cores other work took during the launch (the machine's busy time less the launch's own CPU time).
A launch during which other work took more than --quiet is measured again (--busy-retries): a
ping-pong sharing two cores with another benchmark reads milliseconds; the table says how many
were set aside. Records and logs go under OUT_DIR; the table comes last. About 20 s a launch on a quiet machine.
"""
import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import time

from core import ENV, ROOT

STEP = 1.5  # one NetPIPE step: n, 1.5 n, 2 n, ...
TRANSPORTS = {"vader": ("--mca", "btl", "self,vader"), "tcp": ("--mca", "btl", "tcp,self")}


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def near(a, b):
    return max(a, b) / min(a, b) <= STEP * 1.0001


def cpu_times():
    """The machine's busy and total CPU seconds since boot, from /proc/stat."""
    with open("/proc/stat") as stat:
        fields = [int(v) / os.sysconf("SC_CLK_TCK") for v in stat.readline().split()[1:9]]  # guest is in user
    return sum(fields) - fields[3] - fields[4], sum(fields)  # idle and iowait are not busy


def busy_fraction(seconds=2.0):
    """Share of the machine's CPU time spent busy over `seconds` (the bench itself idle meanwhile)."""
    busy0, total0 = cpu_times()
    time.sleep(seconds)
    busy1, total1 = cpu_times()
    return max(0.0, (busy1 - busy0) / max(1e-9, total1 - total0))


def wait_for_quiet(limit, bound):
    """Waits until the cores are under `limit` busy or `bound` seconds passed; returns the last share."""
    deadline = time.monotonic() + bound
    busy = busy_fraction()
    while busy > limit and time.monotonic() < deadline:
        busy = busy_fraction(5.0)
    return busy


# A launch's breaks: told, and withdrawn (the sweep's pieces showed them, measured again in turn
# they did not repeat); what the sweep alone would have told is both. A break is (bytes, kind, jump,
# the size setting the report says it probably is, or ""). `settings`: the report's set switches,
# {setting: step the curve shows there (0: none read)}.
Launch = collections.namedtuple("Launch", "told withdrawn settings load")


def swept(launch):
    return sorted(launch.told + launch.withdrawn)


class Bench:
    def __init__(self, options):
        self.options = options
        self.npgpu = os.path.abspath(os.path.join(options.build, "npgpu"))
        self.set_aside = 0  # launches measured again: other work took the cores during them
        for folder in ("records", "logs"):
            os.makedirs(os.path.join(options.out, folder), exist_ok=True)

    def launch(self, name, argv):
        """Runs one launch into records/NAME.h5 (nice'd: other engineers time things here); returns
        the breaks of its report's curve and the machine's load: its busy share before the launch,
        and the share that other work took during it (the machine's busy time less the launch's
        own CPU time). A launch during which other work took more than --quiet of the cores is set
        aside (records/NAME.disturbedK.h5) and measured again, up to --busy-retries times: a
        ping-pong that shares two cores with another engineer's benchmark reads milliseconds, a
        curve no detector can read. With --reuse, a record already there (and its load, in
        logs/NAME.load) is reported again instead: the detector judged anew on the same curves."""
        record = os.path.join(self.options.out, "records", name + ".h5")
        load_file = os.path.join(self.options.out, "logs", name + ".load")
        if not (self.options.reuse and os.path.exists(record) and os.path.exists(load_file)):
            for attempt in range(self.options.busy_retries + 1):
                before, others = self.measure(name, record, argv)
                if others <= self.options.quiet or attempt == self.options.busy_retries:
                    break
                os.replace(record, record[:-3] + f".disturbed{attempt}.h5")
                self.set_aside += 1
                print(f"{name}: set aside, measured again", file=sys.stderr, flush=True)
            with open(load_file, "w") as out:
                out.write(f"{before:.0%}/{others:.0%}" + (f" ({attempt} set aside)" if attempt else ""))
        report = json.loads(subprocess.run([self.npgpu, "report", "--json", record], check=True, capture_output=True,
                                           text=True).stdout)
        curve = report["runs"][0]["curves"][0]
        with open(load_file) as load:
            return Launch([(int(b["bytes"]), b["kind"], b["jump"], b.get("set_switch") or "") for b in curve["breaks"]],
                          [(int(b["bytes"]), b["kind"], b["jump"], "") for b in curve.get("withdrawn_breaks", [])],
                          {s["setting"]: s["step"] or 0 for s in curve.get("set_switches", [])}, load.read())

    def measure(self, name, record, argv):
        """One launch: the busy share before it and the share other work took during it."""
        if os.path.exists(record):
            os.remove(record)
        before = wait_for_quiet(self.options.quiet, self.options.quiet_wait)
        argv = ["nice", "-n", "19", *[a.replace("RECORD", record) for a in argv]]
        print(f"{name}: {' '.join(argv)} (cores {before:.0%} busy before)", file=sys.stderr, flush=True)
        busy0, total0 = cpu_times()
        own0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(os.path.join(self.options.out, "logs", name + ".log"), "w") as log:
            status = subprocess.run(argv, env=ENV, stdout=log, stderr=subprocess.STDOUT).returncode
        own1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        busy1, total1 = cpu_times()
        own = own1.ru_utime + own1.ru_stime - own0.ru_utime - own0.ru_stime
        others = max(0.0, (busy1 - busy0 - own) / max(1e-9, total1 - total0))
        print(f"{name}: other work took {others:.0%} of the cores during it", file=sys.stderr, flush=True)
        if status != 0:
            sys.exit(f"switches.py: {name} failed (exit {status}); see {self.options.out}/logs/{name}.log")
        return before, others

    def mpi(self, transport, limit, number):
        mca = [*TRANSPORTS[transport], "--mca", f"btl_{transport}_eager_limit", str(limit)]
        return self.launch(f"{transport}-{limit}-{number}", ["mpirun", "-np", "2", *mca, self.npgpu, "--module", "mpi",
                                                             "--upper", "256K", "-o", "RECORD"])

    def memcpy(self, number):
        return self.launch(f"memcpy-{number}", ["mpirun", "-np", "1", self.npgpu, "--module", "memcpy", "--pattern",
                                                "pingpong", "--upper", "256K", "-o", "RECORD"])

    def loopback_tcp(self, number):
        return self.launch(f"tcp-loopback-{number}", ["mpirun", "-np", "2", self.npgpu, "--module", "tcp", "--upper",
                                                      "256K", "-o", "RECORD"])

    def limited_tcp(self, number):
        script = os.path.join(ROOT, "tests", "multihost", "virtual_cluster.sh")
        inner = f'"$VC_DIR/mpirun" -np 2 {self.npgpu} --module tcp --upper 256K -o RECORD'
        return self.launch(f"tcp-{self.options.rate}mbit-{number}",
                           [script, "run", "2", str(self.options.rate), "--", "bash", "-c", inner])


def path_features():
    """Sizes that explain a feature of a path with no switch: cache sizes, the loopback MTU, the
    socket buffers' defaults."""
    features = {}
    caches = "/sys/devices/system/cpu/cpu0/cache"
    if os.path.isdir(caches):
        for index in sorted(os.listdir(caches)):
            if not index.startswith("index"):
                continue
            base = f"{caches}/{index}/"
            kind = open(base + "type").read().strip()
            if kind != "Instruction":
                features[f"L{open(base + 'level').read().strip()} cache"] = parse_size(open(base + "size").read().strip())
    else:  # a virtual machine may show no cache in sysfs; the C library asks the CPU (getconf)
        for level, name in ((1, "LEVEL1_DCACHE_SIZE"), (2, "LEVEL2_CACHE_SIZE"), (3, "LEVEL3_CACHE_SIZE")):
            answer = subprocess.run(["getconf", name], capture_output=True, text=True).stdout.strip()
            if answer.isdigit() and int(answer) > 0:
                features[f"L{level} cache"] = int(answer)
    features["loopback MTU"] = int(open("/sys/class/net/lo/mtu").read())
    features["net.ipv4.tcp_wmem default"] = int(open("/proc/sys/net/ipv4/tcp_wmem").read().split()[1])
    features["net.ipv4.tcp_rmem default"] = int(open("/proc/sys/net/ipv4/tcp_rmem").read().split()[1])
    return features


def what_it_is(size, known):
    names = [f"{name} = {value}" for name, value in known.items() if near(size, value)]
    return " or ".join(names) if names else "not identified"


def judge(launches, planted):
    """Per group of launches: found (planted within a step), the real breaks (one near them in every
    launch), those the report says a size setting of the MPI probably is (explained), and the false
    ones (the rest)."""
    others = [[b for b in breaks if not (planted and near(b[0], planted))] for breaks in launches]
    real = []  # one size for each feature: the smallest of those within a step of each other
    for size in sorted({b[0] for o in others for b in o if all(any(near(b[0], c[0]) for c in other) for other in others)}):
        if not real or not near(size, real[-1]):
            real.append(size)
    unreal = [b for o in others for b in o if not any(near(b[0], r) for r in real)]
    explained = [b for b in unreal if b[3]]
    false = [b for b in unreal if not b[3]]
    found = sum(any(near(b[0], planted) for b in breaks) for breaks in launches) if planted else 0
    return found, real, explained, false


def planted_setting(launch, transport, limit):
    """The report's set switch that holds the planted limit, or None."""
    name = f"btl_{transport}_eager_limit = {limit}"
    return next((setting for setting in launch.settings if name in setting.split(", ")), None)


def named(launch, transport, limit):
    """The planted switch named: by a break within a step, or by the MPI's setting; with the step the
    curve shows at the setting."""
    setting = planted_setting(launch, transport, limit)
    by_break = any(near(b[0], limit) for b in launch.told)
    step = f"x{launch.settings[setting]:.2f}" if setting and launch.settings[setting] else "-"
    return by_break, setting is not None, step


def describe(launch, planted):
    """Its breaks: 16384*(j x2.10) the planted one, (w ...) withdrawn, 259s(...) one the report
    explains by a size setting."""
    return " ".join(f"{size}{'*' if planted and near(size, planted) else ''}{'s' if setting else ''}"
                    f"({'w ' if (size, kind, jump, setting) in launch.withdrawn else ''}{kind[0]} x{jump:.2f})"
                    for size, kind, jump, setting in swept(launch)) or "none"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="folder for records/ and logs/")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--limits", default="1K,1536,2K,3K,4K,6K,8K,12K,16K,24K,32K,48K,64K")
    parser.add_argument("--transports", default="vader,tcp", help='"" measures only the curves with no switch')
    parser.add_argument("--rate", type=int, default=400, help="Mbit/s of the rate-limited link for raw tcp")
    parser.add_argument("--quiet", type=float, default=0.25, help="busy share of the cores to wait under")
    parser.add_argument("--quiet-wait", type=float, default=60, help="seconds to wait for it at most")
    parser.add_argument("--no-switch", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--busy-retries", type=int, default=2,
                        help="launches to measure again where other work took more than --quiet during one")
    parser.add_argument("--reuse", action="store_true", help="report the records already in OUT_DIR again")
    options = parser.parse_args()
    bench = Bench(options)

    planted_rows, no_switch_rows, notes = [], [], []
    totals = collections.Counter()
    for transport in [t for t in options.transports.split(",") if t]:
        for limit in [parse_size(text) for text in options.limits.split(",")]:
            runs = [bench.mpi(transport, limit, number) for number in range(options.launches)]
            found, real, explained, false = judge([r.told for r in runs], limit)
            swept_found, _, _, swept_false = judge([swept(r) for r in runs], limit)
            names = [named(r, transport, limit) for r in runs]
            named_count = sum(by_break or by_setting for by_break, by_setting, _ in names)
            totals.update(planted=len(runs), found=found, named=named_count, false=len(false), explained=len(explained),
                          launches=len(runs), swept_found=swept_found, swept_false=len(swept_false),
                          by_setting=sum(by_setting for _, by_setting, _ in names))
            planted_rows.append((transport, limit, len(runs), f"{swept_found} / {found}", f"{named_count}",
                                 " ".join(step for _, _, step in names), f"{len(swept_false)} / {len(false)}",
                                 f"{len(explained)}", " | ".join(describe(r, limit) for r in runs),
                                 " ".join(r.load for r in runs)))
            for size in real:
                settings = {b[3] for r in runs for b in r.told if near(b[0], size) and b[3]}
                notes.append(f"{transport} eager limit {limit}: {size} B in every launch, "
                             f"{'the report says: ' + ' or '.join(sorted(settings)) if settings else 'not explained by the report'}")

    if options.no_switch:
        script = os.path.join(ROOT, "tests", "multihost", "virtual_cluster.sh")
        kinds = [("memcpy", bench.memcpy), ("tcp loopback", bench.loopback_tcp)]
        if subprocess.run([script, "usable"], capture_output=True).returncode == 0:
            kinds.append((f"tcp {options.rate} Mbit/s", bench.limited_tcp))
        else:
            notes.append("raw tcp over a rate-limited link: not run (virtual_cluster.sh usable says no)")
        features = path_features()
        for name, run in kinds:
            runs = [run(number) for number in range(options.launches)]
            _, real, _, false = judge([r.told for r in runs], None)
            _, _, _, swept_false = judge([swept(r) for r in runs], None)
            totals.update(no_switch_launches=len(runs), no_switch_false=len(false), no_switch_swept_false=len(swept_false),
                          no_switch_real=sum(len(r.told) for r in runs) - len(false))
            no_switch_rows.append((name, len(runs), f"{len(swept_false)} / {len(false)}",
                                   " | ".join(describe(r, None) for r in runs), " ".join(r.load for r in runs)))
            notes += [f"{name}: {size} B in every launch, probably {what_it_is(size, features)}" for size in real]

    print()
    print("found and false: by the sweep alone / told after measuring each break's sizes again in turn; "
          "(w ...): withdrawn, it did not repeat; named: launches whose report names the planted switch, by a break "
          "or by the MPI's setting, with the step the curve shows there (step at limit); explained: breaks neither "
          "planted nor in every launch that the report says are another size setting of the MPI (259s: one)")
    print_rows(("transport", "limit", "launches", "found", "named", "step at limit", "false", "explained",
                "breaks per launch (* the planted one)", "busy before/others during"), planted_rows)
    if no_switch_rows:
        print()
        print_rows(("no switch", "launches", "false", "breaks per launch", "busy before/others during"), no_switch_rows)
    print()
    for note in notes:
        print(note)
    print(f"\nplanted: {totals['found']} of {totals['planted']} found by a break ({totals['swept_found']} by the sweep "
          f"alone), {totals['planted'] - totals['found']} missed; named {totals['named']} of {totals['planted']} "
          f"({totals['by_setting']} by the MPI's setting); false breaks: {totals['false']} in {totals['launches']} "
          f"launches with a planted switch ({totals['false'] / max(1, totals['launches']):.2f} a launch; "
          f"{totals['swept_false']} by the sweep alone), and {totals['explained']} more that the report explains by "
          f"another size setting")
    if bench.set_aside:
        print(f"{bench.set_aside} launches set aside and measured again: other work took more than "
              f"{options.quiet:.0%} of the cores during them (records/*.disturbed*.h5)")
    if totals["no_switch_launches"]:
        print(f"no switch: {totals['no_switch_false']} false breaks in {totals['no_switch_launches']} launches "
              f"({totals['no_switch_false'] / totals['no_switch_launches']:.2f} a launch; "
              f"{totals['no_switch_swept_false']} by the sweep alone); "
              f"{totals['no_switch_real']} breaks found in every launch of their path")


def print_rows(header, rows):
    width = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, width)).rstrip())


if __name__ == "__main__":
    main()
