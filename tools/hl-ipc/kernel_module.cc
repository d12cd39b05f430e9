// SPDX-License-Identifier: MIT
#include "kernel_module.h"

#include <dirent.h>
#include <elf.h>
#include <libkmod.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "module_file.h"
#include "sysfs.h"

namespace hlipc {

namespace {

struct ModuleRef {
	kmod_module *m = nullptr;
	~ModuleRef()
	{
		if (m)
			kmod_module_unref(m);
	}
};

struct ListRef {
	kmod_list *l = nullptr;
	void (*free)(kmod_list *);
	explicit ListRef(void (*f)(kmod_list *)) : free(f) {}
	~ListRef()
	{
		if (l)
			free(l);
	}
};

void unref_list(kmod_list *l)
{
	kmod_module_unref_list(l);
}

void read_file_info(kmod_module *m, ModuleStatus *s)
{
	ListRef info(kmod_module_info_free_list);
	if (kmod_module_get_info(m, &info.l) < 0)
		return;
	kmod_list *e;
	kmod_list_foreach(e, info.l) {
		std::string k = kmod_module_info_get_key(e);
		const char *v = kmod_module_info_get_value(e);
		std::string val = v ? v : "";
		if (k == "version") {
			s->file_version = val;
		} else if (k == "srcversion") {
			s->file_srcversion = val;
		} else if (k == "parm") {
			size_t colon = val.find(':');
			ModuleParam p;
			p.name = val.substr(0, colon);
			if (colon != std::string::npos)
				p.description = val.substr(colon + 1);
			s->file_params.push_back(p);
		}
	}
}

void read_loaded_params(const std::string &name, ModuleStatus *s)
{
	std::string dir = "/sys/module/" + name + "/parameters";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return;
	while (dirent *e = readdir(d)) {
		if (e->d_name[0] == '.')
			continue;
		ModuleParam p;
		p.name = e->d_name;
		p.value = read_attr(dir + "/" + p.name);
		s->params.push_back(p);
	}
	closedir(d);
	std::sort(s->params.begin(), s->params.end(),
		  [](const ModuleParam &a, const ModuleParam &b) {
			  return a.name < b.name;
		  });
	for (auto &p : s->params)
		for (auto &f : s->file_params)
			if (f.name == p.name)
				p.description = f.description;
}

}  // namespace

std::unique_ptr<KernelModules> KernelModules::open(int *err)
{
	kmod_ctx *ctx = kmod_new(nullptr, nullptr);
	if (!ctx) {
		*err = -ENOMEM;
		return nullptr;
	}
	// Missing indexes (no modules installed) are not an error here.
	kmod_load_resources(ctx);
	return std::unique_ptr<KernelModules>(new KernelModules(ctx));
}

KernelModules::~KernelModules()
{
	kmod_unref(ctx_);
}

ModuleStatus KernelModules::status(const std::string &name)
{
	ModuleStatus s;
	s.name = name;
	ModuleRef mod;
	if (kmod_module_new_from_name(ctx_, name.c_str(), &mod.m) < 0)
		return s;

	if (const char *path = kmod_module_get_path(mod.m)) {
		s.file = path;
		read_file_info(mod.m, &s);
		s.file_build_id = elf_build_id(s.file);
	}

	int st = kmod_module_get_initstate(mod.m);
	if (st < 0)
		return s;
	s.state = kmod_module_initstate_str(static_cast<kmod_module_initstate>(st));
	s.refcount = std::max(0, kmod_module_get_refcnt(mod.m));
	ListRef holders(unref_list);
	holders.l = kmod_module_get_holders(mod.m);
	kmod_list *e;
	kmod_list_foreach(e, holders.l) {
		ModuleRef h;
		h.m = kmod_module_get_module(e);
		s.holders.push_back(kmod_module_get_name(h.m));
	}
	std::string sys = "/sys/module/" + name;
	s.version = read_attr(sys + "/version");
	s.srcversion = read_attr(sys + "/srcversion");
	s.build_id = note_build_id(read_blob(sys + "/notes/.note.gnu.build-id"));
	read_loaded_params(name, &s);

	if (!s.file.empty()) {
		// The build id tells builds of the same sources apart (a DKMS
		// build and a copy built elsewhere); srcversion does not.
		// Equal srcversions only say "same sources", so without both
		// build ids the answer is "no" or "unknown", never "yes".
		if (!s.build_id.empty() && !s.file_build_id.empty())
			s.loaded_from_file = s.build_id == s.file_build_id ? "yes" : "no";
		else if (!s.srcversion.empty() && !s.file_srcversion.empty() &&
			 s.srcversion != s.file_srcversion)
			s.loaded_from_file = "no";
	} else {
		s.loaded_from_file = "no";
	}
	return s;
}

int KernelModules::load(const std::string &name, const std::string &options)
{
	ModuleRef mod;
	int rc = kmod_module_new_from_name(ctx_, name.c_str(), &mod.m);
	if (rc < 0)
		return rc;
	if (!kmod_module_get_path(mod.m))
		return -ENOENT;
	rc = kmod_module_probe_insert_module(mod.m, KMOD_PROBE_IGNORE_COMMAND,
					     options.empty() ? nullptr : options.c_str(),
					     nullptr, nullptr, nullptr);
	return rc > 0 ? -EPERM : rc;  // > 0: refused by a blacklist
}

int KernelModules::unload(const std::string &name)
{
	ModuleRef mod;
	int rc = kmod_module_new_from_name(ctx_, name.c_str(), &mod.m);
	if (rc < 0)
		return rc;
	if (kmod_module_get_initstate(mod.m) < 0)
		return -ENOENT;
	return kmod_module_remove_module(mod.m, 0);
}

std::string note_build_id(const std::string &blob)
{
	// A sequence of notes: namesz, descsz, type, name (padded to 4),
	// desc (padded to 4).
	size_t off = 0;
	while (off + 12 <= blob.size()) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, blob.data() + off, 4);
		memcpy(&descsz, blob.data() + off + 4, 4);
		memcpy(&type, blob.data() + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + ((namesz + 3) & ~3u);
		size_t next = desc_off + ((descsz + 3) & ~3u);
		if (next > blob.size())
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(blob.data() + name_off, "GNU", 4)) {
			static const char hex[] = "0123456789abcdef";
			std::string s;
			for (size_t i = 0; i < descsz; i++) {
				unsigned char c = blob[desc_off + i];
				s += hex[c >> 4];
				s += hex[c & 15];
			}
			return s;
		}
		off = next;
	}
	return "";
}

std::string elf_build_id(const std::string &path)
{
	std::string f = read_module_image(path, 64 << 20);
	if (f.size() < sizeof(Elf64_Ehdr) || memcmp(f.data(), ELFMAG, SELFMAG) ||
	    f[EI_CLASS] != ELFCLASS64)
		return "";
	Elf64_Ehdr eh;
	memcpy(&eh, f.data(), sizeof(eh));
	if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > f.size())
		return "";
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		memcpy(&sh, f.data() + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type != SHT_NOTE || sh.sh_offset + sh.sh_size > f.size())
			continue;
		std::string id = note_build_id(f.substr(sh.sh_offset, sh.sh_size));
		if (!id.empty())
			return id;
	}
	return "";
}

}  // namespace hlipc
