"""Interleaved timing rounds, shared by the Python benchmarks beside it."""
import statistics
import time


def interleaved_us(runs, count, rounds, repeat=1):
    """Median microseconds per operation of each of @runs (name: a function
    doing @count operations), each warmed once, over @rounds rounds of
    @repeat runs of each: every round runs every one, so that a slower
    spell of a shared machine falls on all of them alike, and starts with
    the next one, so that none always follows the same other."""
    times = {name: [] for name in runs}
    names = list(runs)
    for run in runs.values():
        run()
    for round_index in range(rounds):
        first = round_index % len(names)
        for name in names[first:] + names[:first]:
            start = time.perf_counter()
            for _ in range(repeat):
                runs[name]()
            times[name].append((time.perf_counter() - start) / (count * repeat) * 1e6)
    return {name: statistics.median(values) for name, values in times.items()}
