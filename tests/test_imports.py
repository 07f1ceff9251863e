"""What importing costs or breaks: highspy and ortools both bundle HiGHS (some version pairs crash
when imported together); the command line must not pull in matplotlib before it draws."""

import subprocess
import sys


def assert_runs_ok(code: str) -> None:
    """Run ``code`` in a fresh interpreter (imports are per process); it must print ``ok`` last."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


def test_highspy_and_ortools_import_and_solve_in_one_process():
    code = (
        "import highspy\n"
        "from ortools.sat.python import cp_model\n"
        "from ortools.linear_solver import pywraplp\n"
        "h = highspy.Highs(); h.setOptionValue('output_flag', False); h.run()\n"
        "m = cp_model.CpModel(); x = m.new_bool_var('x'); m.maximize(x)\n"
        "s = cp_model.CpSolver(); assert s.solve(m) == cp_model.OPTIMAL\n"
        "print('ok')\n"
    )
    assert_runs_ok(code)


def test_highs_objects_do_not_share_the_running_lock():
    """An abandoned solve on one Highs object must not block solves on others (highspy 1.16
    keeps that lock on the class; fedopt gives each object its own)."""
    import threading

    from fedopt.backends.highs import new_highs

    a, b = new_highs(), new_highs()
    held, done = threading.Event(), threading.Event()

    def solving_on_a():  # as if a solve were running on a, in its solver thread
        with a._Highs__solver_stopped:
            held.set()
            done.wait(10)

    t = threading.Thread(target=solving_on_a)
    t.start()
    held.wait(10)
    try:
        assert a.is_solver_running()
        assert not b.is_solver_running()
    finally:
        done.set()
        t.join()


def test_the_command_line_does_not_import_matplotlib_until_a_figure_is_drawn():
    """Every command's parser names `report`; importing its figures made `fedopt solve` pay ~0.25 s
    of matplotlib. The report package loads its modules on first use."""
    code = (
        "import sys\n"
        "from fedopt.cli import parser\n"
        "parser()\n"
        "assert 'matplotlib' not in sys.modules, 'parser imported matplotlib'\n"
        "from fedopt.report import plot_pool_use\n"
        "assert 'matplotlib' in sys.modules and callable(plot_pool_use)\n"
        "print('ok')\n"
    )
    assert_runs_ok(code)
