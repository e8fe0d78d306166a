"""Time AgentDojo ground-truth episodes (no model): run inside a throwaway venv by `all.py`.

    python agentdojo_episodes.py [ROUNDS]

Never imported by the arena (AgentDojo is not a dependency). For every user task of the
banking and slack suites, one episode is what `TaskSuite.run_task_with_pipeline` does with
a `GroundTruthPipeline`: load the suite's environment, run the task's ground-truth tool
calls, check utility. Prints one JSON line: episodes, CPU and wall seconds per episode, and
the ground-truth tool calls an episode makes on average.
"""

import json
import sys
import time
import warnings

from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline
from agentdojo.task_suite.load_suites import get_suite

warnings.simplefilter("ignore")
VERSION = "v1.2.2"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    tasks = [(get_suite(VERSION, name), task) for name in ("banking", "slack")
             for task in get_suite(VERSION, name).user_tasks.values()]
    for suite, task in tasks:  # warm: first loads import and cache what they will
        suite.run_task_with_pipeline(GroundTruthPipeline(task), task, None, {})
    calls = sum(len(task.ground_truth(suite.load_and_inject_default_environment({}))) for suite, task in tasks)
    passed = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(rounds):
        for suite, task in tasks:
            utility, _ = suite.run_task_with_pipeline(GroundTruthPipeline(task), task, None, {})
            passed += bool(utility)
    n = rounds * len(tasks)
    print(json.dumps({"version": VERSION, "episodes": n, "tasks": len(tasks), "passed": passed,
                      "calls_per_episode": calls / len(tasks),
                      "cpu_s": (time.process_time() - cpu0) / n, "wall_s": (time.perf_counter() - wall0) / n}))


if __name__ == "__main__":
    main()
