// SPDX-License-Identifier: MIT
// KernelModules: what libkmod and /sys/module say about our modules, and
// loading and unloading them through libkmod.
#pragma once

#include <memory>
#include <string>
#include <vector>

struct kmod_ctx;

namespace hlipc {

struct ModuleParam {
	std::string name;
	std::string value;        // current value (loaded module); may be empty
	std::string description;  // from modinfo of the installed file
};

struct ModuleStatus {
	std::string name;
	// "live", "coming", "going", "builtin", or "absent" (not loaded).
	std::string state = "absent";
	int refcount = 0;
	std::vector<std::string> holders;  // modules that use this one
	// Of the loaded module; empty where the module does not say.
	std::string version, srcversion, build_id;
	std::vector<ModuleParam> params;   // current values

	// The file modprobe loads for the running kernel (modules.dep);
	// empty if the module is not installed.
	std::string file;
	std::string file_version, file_srcversion, file_build_id;
	std::vector<ModuleParam> file_params;  // names and descriptions
	// Whether the loaded module is that file: "yes", "no" or "unknown"
	// (compared by GNU build id; different srcversions also mean "no").
	std::string loaded_from_file = "unknown";

	bool loaded() const { return state != "absent"; }
};

class KernelModules {
public:
	KernelModules(const KernelModules &) = delete;
	KernelModules &operator=(const KernelModules &) = delete;
	~KernelModules();

	// nullptr, with *err set to -errno, if libkmod cannot start.
	static std::unique_ptr<KernelModules> open(int *err);

	ModuleStatus status(const std::string &name);
	// Loads name (and what it depends on) with options ("a=1 b=2") on top
	// of those of /etc/modprobe.d.  0 or -errno.
	int load(const std::string &name, const std::string &options);
	// 0, or -errno (-EBUSY/-EAGAIN while in use, -ENOENT if not loaded).
	int unload(const std::string &name);

private:
	explicit KernelModules(kmod_ctx *ctx) : ctx_(ctx) {}
	kmod_ctx *ctx_;
};

// The GNU build id of a module file (ELF, or xz-compressed ELF), as hex;
// empty if there is none or the file cannot be read (read_module_image).
std::string elf_build_id(const std::string &path);
// The same from a note blob (/sys/module/NAME/notes/.note.gnu.build-id).
std::string note_build_id(const std::string &blob);

}  // namespace hlipc
