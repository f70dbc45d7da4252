// `mdfi devices`: the OpenCL platforms and devices mdfi can run on (--backend opencl
// --device N|NAME), with what matters for choosing one: compute units, global and local memory,
// the OpenCL version and the driver. Exit 1 when OpenCL is not built in or no platform exists.
#include <cstdio>

#include "backend.h"
#include "commands.h"
#include "exit_codes.h"

namespace mdfi::app {

Action add_devices_command(CLI::App& app) {
  app.add_subcommand("devices", "list the OpenCL platforms and devices usable with --backend opencl");
  return []() {
    auto devs = cl::list_devices();
    if (!devs.ok()) return report(devs.status());
    std::string platform;
    for (const cl::DeviceSummary& d : *devs) {
      if (d.platform != platform) std::printf("platform: %s\n", (platform = d.platform).c_str());
      std::printf("  [%d] %s (%s)\n", d.index, d.name.c_str(), d.type.c_str());
      std::printf("      compute units %u, global memory %s, local memory %s, max buffer %s\n", d.compute_units,
                  format_bytes(d.global_mem).c_str(), format_bytes(d.local_mem).c_str(), format_bytes(d.max_alloc).c_str());
      std::printf("      %s, driver %s\n", d.version.c_str(), d.driver.c_str());
    }
    return int(kExitOk);
  };
}

}  // namespace mdfi::app
