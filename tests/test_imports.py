"""highspy and ortools both bundle HiGHS; some version pairs crash when imported together."""

import subprocess
import sys


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
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")
