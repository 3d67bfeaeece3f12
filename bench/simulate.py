"""``unolauncher simulate --jobs N`` against one job: games/s side by side, and the summaries compared.

    .venv/bin/python bench/simulate.py [--games 3000] [--pairs 5] [--jobs 2] [--ruleset attack] [--players 4]

Each pair runs ``unolauncher simulate --json`` as a subprocess with ``--jobs 1`` and then with ``--jobs N`` (the
order alternates from pair to pair, so both see the same machine load); games/s is the whole run's wall-clock time
as simulate reports it (worker start-up included), plus the process start-up outside it. Prints the medians, the
ratio of the medians, the load average, and whether every run's summary (timing left out) was identical.
On a machine shared with other work the wall-clock ratio says little (two jobs get two cores only when nobody else
wants them), so the bench also prints each run's CPU time (its processes' user + system time, from
``getrusage(RUSAGE_CHILDREN)``): the ratio of CPU time per game bounds the speed-up on N idle cores from above,
N x (CPU of one job / CPU of N jobs).

``--limit`` adds a third run to each round: N independent ``--jobs 1`` processes started side by side, each playing
the same games; their games/s added up, against one process alone, is the speed-up this machine gives N processes
that share nothing (caches, memory bandwidth and the hypervisor are shared all the same) — the most any ``--jobs N``
could reach here. The three runs of a round take turns in a rotating order.

Target (issue 16): games/s with ``--jobs 2`` ≥ 1.8x one job on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

TIMING = ("seconds", "games_per_s", "steps_per_s")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def simulate_command(args: argparse.Namespace, jobs: int) -> list[str]:
    command = [sys.executable, "-m", "unolauncher", "simulate", "--json", "--jobs", str(jobs)]
    command += ["--games", str(args.games), "--seed", str(args.seed)]
    return [*command, "--ruleset", args.ruleset, "--players", str(args.players)]


def one_run(args: argparse.Namespace, jobs: int) -> tuple[float, float, float, dict[str, object]]:
    """(games/s as simulate times it, games/s from process start, CPU seconds of all its processes, summary
    without timing)."""
    command = simulate_command(args, jobs)
    cpu0, t0 = children_cpu(), time.perf_counter()
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    summary = json.loads(out)
    rest = {k: v for k, v in summary.items() if k not in TIMING}
    return float(summary["games_per_s"]), args.games / wall, cpu, rest


def side_by_side(args: argparse.Namespace, count: int) -> float:
    """``count`` independent ``--jobs 1`` runs started together: the sum of their games/s (as simulate times it)."""
    processes = [subprocess.Popen(simulate_command(args, 1), stdout=subprocess.PIPE, text=True) for _ in range(count)]
    rates = []
    for process in processes:
        out, _ = process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"simulate exited with {process.returncode}")
        rates.append(float(json.loads(out)["games_per_s"]))
    return sum(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", default="attack")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--limit", action="store_true", help="also N independent --jobs 1 side by side")
    args = parser.parse_args()
    rates: dict[int, list[float]] = {1: [], args.jobs: []}
    whole: dict[int, list[float]] = {1: [], args.jobs: []}
    cpus: dict[int, list[float]] = {1: [], args.jobs: []}
    summaries = []
    loads = []
    limits: list[float] = []
    for pair in range(args.pairs):
        order: list[int] = [1, args.jobs] if pair % 2 == 0 else [args.jobs, 1]
        if args.limit:
            order.insert(pair % 3, 0)  # 0: the side-by-side run, in a rotating place
        for jobs in order:
            if jobs == 0:
                limits.append(side_by_side(args, args.jobs))
                continue
            rate, rate_whole, cpu, summary = one_run(args, jobs)
            cpus[jobs].append(cpu)
            rates[jobs].append(rate)
            whole[jobs].append(rate_whole)
            summaries.append(summary)
        loads.append(os.getloadavg()[0])
    one, many = statistics.median(rates[1]), statistics.median(rates[args.jobs])
    print(
        f"simulate {args.ruleset}, {args.players} players, {args.games} games, seed {args.seed}; "
        f"{args.pairs} alternated pairs; {os.cpu_count()} CPUs, load average (1 min) median "
        f"{statistics.median(loads):.2f}"
    )
    print(f"  --jobs 1: median {one:,.0f} games/s ({statistics.median(whole[1]):,.0f} with process start-up)")
    print(
        f"  --jobs {args.jobs}: median {many:,.0f} games/s "
        f"({statistics.median(whole[args.jobs]):,.0f} with process start-up)"
    )
    with_start = statistics.median(whole[args.jobs]) / statistics.median(whole[1])
    print(f"  ratio {many / one:.2f}x (with start-up {with_start:.2f}x); target >= 1.8x on 2 cores")
    cpu_one, cpu_many = statistics.median(cpus[1]), statistics.median(cpus[args.jobs])
    print(
        f"  CPU time per run (all processes): --jobs 1 median {cpu_one:.2f} s, --jobs {args.jobs} {cpu_many:.2f} s "
        f"({cpu_many / cpu_one:.3f}x); bound on {args.jobs} idle cores: {args.jobs * cpu_one / cpu_many:.2f}x"
    )
    if limits:
        limit = statistics.median(limits)
        print(
            f"  {args.jobs} independent --jobs 1 side by side: median {limit:,.0f} games/s in all, {limit / one:.2f}x "
            f"one alone (this machine's limit for {args.jobs} processes); --jobs {args.jobs} reaches "
            f"{many / limit:.2f} of it"
        )
    same = all(summary == summaries[0] for summary in summaries)
    print(f"  summaries identical across all {len(summaries)} runs: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
