// SPDX-License-Identifier: MIT
// The hl-ipc subcommands; each takes its own argv (argv[0] is its name).
#pragma once

namespace hlipc {

int status_main(int argc, char **argv);
int load_main(int argc, char **argv);
int unload_main(int argc, char **argv);
int channels_main(int argc, char **argv);
int regions_main(int argc, char **argv);
int bench_main(int argc, char **argv);
int demo_main(int argc, char **argv);

}  // namespace hlipc
