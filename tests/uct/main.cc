// SPDX-License-Identifier: MIT
// The bridge tests' program: GoogleTest, or (started by the tests
// themselves) a peer process: uct_bridge_tests --peer FD DEVICE.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "bridge_fixture.h"
#include "peer.h"
#include "uct_env.h"

int main(int argc, char **argv)
{
	if (!uct_test::load_plugin())
		return 2;
	if (argc == 4 && strcmp(argv[1], "--peer") == 0)
		return uct_test::peer_main(atoi(argv[2]), atoi(argv[3]));
	::testing::InitGoogleTest(&argc, argv);
	int rc = RUN_ALL_TESTS();
	// The peer, interfaces and device go before UCX's own teardown.
	uct_test::BridgeEnv::teardown_if_used();
	return rc;
}
