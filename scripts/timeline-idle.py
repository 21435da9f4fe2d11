#!/usr/bin/env python3
"""Idle time that a better scheduler could have used, from `cx bench fib --timeline FILE` traces.

For every worker-moment of a run it asks: was this worker idle while some task of the DAG was ready (its
inputs computed) but not started, anywhere in the network? That time is "idle with work waiting"; the rest of the
idle time is the DAG itself (nothing was ready) or the critical path running late. It is split into the first
tenth of the run, the middle and the last tenth.

A task is ready when its DAG predecessors have run (a decomposition's children when it ends, a composition when
both values it sums exist), not when a server first stores it: producers run kept successors before the server
records them. Only the first execution of a task counts (eager copies are duplicates). A timeline of a window of
a longer run (`cx bench multi --timeline`) holds tasks whose predecessors ran before it: those count as ready only
when they started.

With --compositions it also says how long compositions waited from the moment their last input was computed
until they started, separately for those whose last input ran at a producer of another server: with one server the
producer that computes a composition's last input runs it at once; across servers the value travels first.

With --refill it says, for the middle of the run (between the first and last tenth), where the waiting tasks were
while workers idled (still at the server, or already in a producer's cache behind a running task), and how an idle
period ended by an assigned task splits: from the worker going idle until the server assigned the task (the
producer's request travelling and queueing), and from then until the worker started it (the assignment travelling).

Usage: scripts/timeline-idle.py [--workers N] [--compositions] [--refill] TIMELINE.json ...
"""
import argparse
import bisect
import collections
import json
import statistics


def executions(trace):
    """Task id -> (start, end) in µs of its first execution."""
    runs = {}
    for e in trace:
        if e.get('ph') == 'X' and e.get('cat') != 'idle' and 'task' in e.get('args', {}):
            task, start, end = e['args']['task'], e['ts'], e['ts'] + e['dur']
            if task not in runs or start < runs[task][0]:
                runs[task] = (start, end)
    return runs


def servers(trace):
    """Task id -> the server (trace process) of the producer that ran its first execution."""
    first = {}
    for e in trace:
        if e.get('ph') == 'X' and e.get('cat') != 'idle' and 'task' in e.get('args', {}):
            task = e['args']['task']
            if task not in first or e['ts'] < first[task][0]:
                first[task] = (e['ts'], e['pid'])
    return {task: pid for task, (_, pid) in first.items()}


def composition_waits(runs, where):
    """Waits in ms of compositions whose last input ran on the same server, and on another: two lists."""
    ready = ready_times(runs)
    same, other = [], []
    for task in runs:
        parent, _, last = task.rpartition('/')
        if last != '0':
            continue
        inputs = [x + '/0' if x + '/0' in runs else x for x in (parent + '/1', parent + '/2')]
        if any(x not in runs for x in inputs):
            continue  # an input ran before the timeline began
        latest = max(inputs, key=lambda x: runs[x][1])
        (same if where[latest] == where[task] else other).append((runs[task][0] - ready[task]) / 1e3)
    return same, other


def ready_times(runs):
    """Task id -> when its inputs existed. Ids are paths: children of /a are /a/1 and /a/2, its sum is /a/0."""
    def value_at(task):
        done = runs.get(task + '/0', runs.get(task))
        return None if done is None else done[1]

    ready = {}
    for task, (start, _) in runs.items():
        parent, _, last = task.rpartition('/')
        if last == '0':
            inputs = [value_at(parent + '/1'), value_at(parent + '/2')]
            ready[task] = start if None in inputs else max(inputs)  # None: computed before the timeline began
        elif parent in runs:
            ready[task] = runs[parent][1]
        else:
            ready[task] = start  # the root task
    return ready


def idle_with_work_waiting(runs, workers):
    """Worker-seconds idle while a ready task waited: (total, [first tenth, middle, last tenth])."""
    ready = ready_times(runs)
    events = []
    for task, (start, end) in runs.items():
        events += [(ready[task], 1, 0), (start, -1, 0), (start, 0, 1), (end, 0, -1)]
    events.sort()
    first = min(s for s, _ in runs.values())
    span = max(e for _, e in runs.values()) - first
    waiting = running = 0
    last = first
    phases = [0.0, 0.0, 0.0]
    for ts, d_waiting, d_running in events:
        at = (last - first) / span
        phases[0 if at < 0.1 else 2 if at > 0.9 else 1] += min(max(workers - running, 0), waiting) * (ts - last)
        last = ts
        waiting += d_waiting
        running += d_running
    phases = [p / 1e6 for p in phases]
    return sum(phases), phases, span / 1e3


def refill(trace, runs, workers):
    """Prints where tasks waited while workers idled in the middle of the run, and how idle periods ended."""
    first = min(s for s, _ in runs.values())
    last = max(e for _, e in runs.values())
    middle = (first + 0.1 * (last - first), first + 0.9 * (last - first))
    assigned, cached_ms, worker_runs = {}, {}, collections.defaultdict(list)
    for e in trace:
        args = e.get('args', {})
        if e.get('name') == 'assigned':
            assigned.setdefault(args['task'], e['ts'])
        elif e.get('ph') == 'X' and e.get('cat') != 'idle' and 'task' in args:
            cached_ms.setdefault(args['task'], args.get('cached_ms'))
            worker_runs[(e['pid'], e['tid'])].append((e['ts'], args['task']))
    for mine in worker_runs.values():
        mine.sort()
    ready = ready_times(runs)
    at_server, in_cache = [], []  # (from, to) of each task's waits
    for task, (start, _) in runs.items():
        handed = assigned.get(task) if cached_ms.get(task) != 'claimed' else None
        at_server.append((ready[task], start if handed is None else max(handed, ready[task])))
        if handed is not None:
            in_cache.append((max(handed, ready[task]), start))
    starts, ends = sorted(s for s, _ in runs.values()), sorted(e for _, e in runs.values())

    def waiting_at(intervals):
        """A function of ts: how many of the (from, to) waits hold ts; O(log n) each, from the sorted ends."""
        froms = sorted(a for a, b in intervals if a < b)
        tos = sorted(b for a, b in intervals if a < b)
        return lambda ts: bisect.bisect_right(froms, ts) - bisect.bisect_right(tos, ts)

    count_server, count_cache = waiting_at(at_server), waiting_at(in_cache)
    step = 100.0  # µs
    idle_total = idle_server = idle_cache = 0.0
    for i in range(int((middle[1] - middle[0]) / step)):
        ts = middle[0] + i * step
        idle = workers - (bisect.bisect_right(starts, ts) - bisect.bisect_right(ends, ts))
        if idle <= 0:
            continue
        waiting_server, waiting_cache = count_server(ts), count_cache(ts)
        idle_total += idle * step
        idle_server += min(idle, waiting_server) * step
        idle_cache += min(idle - min(idle, waiting_server), waiting_cache) * step
    print(f'  middle: idle {idle_total / 1e6:.3f} worker-s; with a ready task still at the server '
          f'{idle_server / 1e6:.3f}, with one only in a producer\'s cache {idle_cache / 1e6:.3f}')
    to_server, to_worker, periods = [], [], []
    for e in trace:
        if e.get('ph') != 'X' or e.get('cat') != 'idle' or not middle[0] < e['ts'] < middle[1]:
            continue
        periods.append(e['dur'] / 1e3)
        mine = worker_runs[(e['pid'], e['tid'])]
        i = bisect.bisect_left(mine, (e['ts'] + e['dur'] - 1,))
        task = mine[i][1] if i < len(mine) else None  # what the worker ran next
        handed = assigned.get(task)
        if task is not None and cached_ms.get(task) != 'claimed' and handed is not None and handed >= e['ts']:
            to_server.append((handed - e['ts']) / 1e3)
            to_worker.append((runs[task][0] - handed) / 1e3)
    if periods:
        print(f'  middle idle periods: {len(periods)}, median {statistics.median(periods):.2f} ms')
    if to_server:
        print(f'  ended by a task assigned meanwhile ({len(to_server)}): idle until the server assigned it, median '
              f'{statistics.median(to_server):.2f} ms; assigned until started, median '
              f'{statistics.median(to_worker):.2f} ms')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--workers', type=int, default=64, help='workers in the run (default 64)')
    parser.add_argument('--compositions', action='store_true',
                        help='also the compositions\' waits, by where their last input ran')
    parser.add_argument('--refill', action='store_true',
                        help='also where waiting tasks were while workers idled, and how idle periods ended')
    parser.add_argument('timelines', nargs='+')
    args = parser.parse_args()
    totals = []
    for path in args.timelines:
        with open(path) as f:
            trace = json.load(f)
        trace = trace['traceEvents'] if isinstance(trace, dict) else trace
        total, phases, span_ms = idle_with_work_waiting(executions(trace), args.workers)
        totals.append(total)
        print(f'{path}: run {span_ms:.1f} ms, idle with work waiting {total:.3f} worker-s '
              f'(first tenth {phases[0]:.3f}, middle {phases[1]:.3f}, last tenth {phases[2]:.3f})')
        if args.compositions:
            runs = executions(trace)
            for label, waits in zip(('the same server', 'another server'), composition_waits(runs, servers(trace))):
                if waits:
                    print(f'  compositions whose last input ran on {label}: {len(waits)}, waited median '
                          f'{statistics.median(waits):.2f} ms, mean {statistics.mean(waits):.2f} ms')
        if args.refill:
            refill(trace, executions(trace), args.workers)
    if len(totals) > 1:
        print(f'median of {len(totals)}: {statistics.median(totals):.3f} worker-s')


if __name__ == '__main__':
    main()
