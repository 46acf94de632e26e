// The GPU benchmark and tuning subcommands of the CLI (`eigsolve bench ...`, `eigsolve tune ...`).
// They parse their own options; only app/main.cpp catches what they throw.
#pragma once

namespace eigsolve {

/// `eigsolve bench symv [options]` (argv[0] = "symv").
int main_bench_symv(int argc, char** argv);
/// `eigsolve bench eig [options]` (argv[0] = "eig").
int main_bench_eig(int argc, char** argv);
/// `eigsolve tune symv [options]` (argv[0] = "symv").
int main_tune_symv(int argc, char** argv);

}  // namespace eigsolve
