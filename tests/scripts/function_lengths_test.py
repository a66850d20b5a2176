#!/usr/bin/env python3
"""Unit tests of scripts/function-lengths.py (ctest: function_lengths_script).

The counter must see the functions of a file that starts with preprocessor lines (an
`#include` once swallowed the namespace after it, so no function of such a file was
counted), ignore braces in macros, and the check must fail on a function over the limit
unless the exceptions file allows exactly that function at that length.
"""
import contextlib
import importlib.util
import io
import pathlib
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "function-lengths.py"
spec = importlib.util.spec_from_file_location("function_lengths", SCRIPT)
fl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fl)


def lines_of(name, total):
    """A function NAME of `total` lines, declaration to closing brace."""
    body = "".join(f"    x += {i};\n" for i in range(total - 2))
    return f"int {name}(int x) {{\n{body}}}\n"


PREPROCESSOR_LED = """\
#include "recipe/validate.hpp"

#include <algorithm>
#include <string>
#define TB_CHECK(cond) \\
    do {                \\
        if (!(cond)) {  \\
            throw 1;    \\
        }               \\
    } while (0)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#endif

namespace trainbench::recipe {
namespace {

int helper(int x) {
    return x + 1;
}

}  // namespace

int top_level(int x) {
#ifdef TB_EXTRA
    x += 2;
#endif
    return helper(x);
}

struct S {
    int member(int y) const {
        return y;
    }
};

}  // namespace trainbench::recipe
"""


class Counter(unittest.TestCase):
    def test_a_preprocessor_led_file_has_all_its_functions_counted(self):
        found = {name: (length, line) for length, line, name in fl.functions_in(PREPROCESSOR_LED)}
        self.assertEqual(found, {"helper": (3, 18), "top_level": (6, 24), "member": (3, 32)})

    def test_braces_in_a_macro_and_its_continuation_lines_do_not_count(self):
        text = "#define BLOCK(x) \\\n    { int f(int y) { return y; } }\nint g(int a) {\n    return a;\n}\n"
        self.assertEqual(fl.functions_in(text), [(3, 3, "g")])

    def test_braces_in_comments_and_strings_do_not_count(self):
        text = 'int f() {\n    // }\n    const char* s = "}{";\n    /* { */\n    return 0;\n}\n'
        self.assertEqual(fl.functions_in(text), [(6, 1, "f")])

    def test_a_length_runs_from_the_declaration_to_the_closing_brace(self):
        text = "#include <x>\nnamespace n {\n" + lines_of("long_one", 81) + "}\n"
        self.assertEqual(fl.functions_in(text), [(81, 3, "long_one")])


class Check(unittest.TestCase):
    """main() on a scratch ROOT with src/, include/ and an exceptions file."""

    def run_check(self, source, exceptions=None):
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            (root / "src" / "m").mkdir(parents=True)
            (root / "src" / "cli").mkdir()
            (root / "include").mkdir()
            (root / "src" / "m" / "a.cpp").write_text(source)
            args = [str(SCRIPT), str(root)]
            if exceptions is not None:
                (root / "exceptions.txt").write_text(exceptions)
                args[1:1] = ["--exceptions", str(root / "exceptions.txt")]
            out = io.StringIO()
            saved = sys.argv
            sys.argv = args
            try:
                with contextlib.redirect_stdout(out):
                    rc = fl.main()
            finally:
                sys.argv = saved
            return rc, out.getvalue()

    def source(self, length):
        return "#include <vector>\nnamespace trainbench {\n" + lines_of("planted", length) + "}\n"

    def test_80_lines_pass(self):
        rc, out = self.run_check(self.source(80))
        self.assertEqual(rc, 0, out)

    def test_81_lines_fail_and_name_the_function(self):
        rc, out = self.run_check(self.source(81))
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: src/m/a.cpp:3: planted is 81 lines, over 80", out)

    def test_an_exception_allows_its_function_up_to_its_length(self):
        rc, out = self.run_check(self.source(90), "# comment\nsrc/m/a.cpp  planted  90  a reason\n")
        self.assertEqual(rc, 0, out)

    def test_an_excepted_function_that_grows_fails(self):
        rc, out = self.run_check(self.source(91), "src/m/a.cpp  planted  90  a reason\n")
        self.assertEqual(rc, 1, out)
        self.assertIn("planted is 91 lines, more than the 90 its exception allows", out)

    def test_an_exception_for_another_file_does_not_apply(self):
        rc, out = self.run_check(self.source(81), "src/m/b.cpp  planted  90  a reason\n")
        self.assertEqual(rc, 1, out)
        self.assertIn("planted is 81 lines, over 80", out)
        self.assertIn("src/m/b.cpp planted is no longer over 80 lines", out)

    def test_a_stale_exception_fails(self):
        rc, out = self.run_check(self.source(40), "src/m/a.cpp  planted  90  a reason\n")
        self.assertEqual(rc, 1, out)
        self.assertIn("remove its entry", out)

    def test_an_exception_without_a_reason_is_an_error(self):
        rc, out = self.run_check(self.source(90), "src/m/a.cpp  planted  90\n")
        self.assertEqual(rc, 1, out)
        self.assertIn("want 'PATH NAME LINES REASON'", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
