// SPDX-License-Identifier: MIT
// hl-ipc demo: two processes, one emulated device each, move buffers
// through a channel and through the staged DMA path and compare.
#pragma once

namespace hlipc {

int demo_main(int argc, char **argv);

}  // namespace hlipc
