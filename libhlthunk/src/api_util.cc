// SPDX-License-Identifier: MIT
// hl-thunk's utilities: memory, the version string, a map of unsigned
// long keys, and the deprecated entry points kept for binary
// compatibility.
#include <cstdio>
#include <cstdlib>
#include <new>
#include <unordered_map>

#include "c_return.h"
#include "hlthunk.h"

using namespace hlthunk;

#ifndef HLTHUNK_VERSION_STRING
#define HLTHUNK_VERSION_STRING "0.0.0"
#endif

extern "C" hlthunk_public void *hlthunk_malloc(size_t size)
{
	return calloc(1, size);
}

extern "C" hlthunk_public void hlthunk_free(void *pt)
{
	free(pt);
}

extern "C" hlthunk_public char *hlthunk_get_version(void)
{
	static const char v[] = HLTHUNK_VERSION_STRING "-libhlthunk";
	auto *s = static_cast<char *>(hlthunk_malloc(sizeof(v)));
	if (!s) {
		errno = ENOMEM;
		return nullptr;
	}
	snprintf(s, sizeof(v), "%s", v);
	return s;
}

namespace {

// The table behind hlthunk_hash_*: a map plus the position of a walk with
// hash_first/hash_next.  The tag tells a table from any other pointer a
// caller might pass by mistake.
struct HashTable {
	static constexpr uint32_t kTag = 0x68617368;  // "hash"
	uint32_t tag = kTag;
	std::unordered_map<unsigned long, void *> map;
	std::unordered_map<unsigned long, void *>::iterator walk;
	bool walking = false;
};

HashTable *table_of(void *t)
{
	auto *h = static_cast<HashTable *>(t);
	return h && h->tag == HashTable::kTag ? h : nullptr;
}

}  // namespace

extern "C" hlthunk_public void *hlthunk_hash_create(void)
{
	return new (std::nothrow) HashTable();
}

extern "C" hlthunk_public int hlthunk_hash_destroy(void *t)
{
	HashTable *h = table_of(t);
	if (!h)
		return -1;
	h->tag = 0;
	delete h;
	return 0;
}

extern "C" hlthunk_public int hlthunk_hash_lookup(void *t, unsigned long key, void **value)
{
	HashTable *h = table_of(t);
	if (!h || !value)
		return -1;
	auto it = h->map.find(key);
	if (it == h->map.end())
		return 1;
	*value = it->second;
	return 0;
}

extern "C" hlthunk_public int hlthunk_hash_insert(void *t, unsigned long key, void *value)
{
	HashTable *h = table_of(t);
	if (!h)
		return -1;
	try {
		auto r = h->map.emplace(key, value);
		if (!r.second)
			return 1;
		h->walking = false;  // a rehash may have moved everything
		return 0;
	} catch (...) {
		return -1;
	}
}

extern "C" hlthunk_public int hlthunk_hash_delete(void *t, unsigned long key)
{
	HashTable *h = table_of(t);
	if (!h)
		return -1;
	auto it = h->map.find(key);
	if (it == h->map.end())
		return 1;
	if (h->walking && h->walk == it)
		h->walk = h->map.erase(it);
	else
		h->map.erase(it);
	return 0;
}

extern "C" hlthunk_public int hlthunk_hash_next(void *t, unsigned long *key, void **value)
{
	HashTable *h = table_of(t);
	if (!h || !key || !value)
		return -1;
	if (!h->walking || h->walk == h->map.end())
		return 0;
	*key = h->walk->first;
	*value = h->walk->second;
	++h->walk;
	return 1;
}

extern "C" hlthunk_public int hlthunk_hash_first(void *t, unsigned long *key, void **value)
{
	HashTable *h = table_of(t);
	if (!h)
		return -1;
	h->walk = h->map.begin();
	h->walking = true;
	return hlthunk_hash_next(t, key, value);
}

// Kept in hl-thunk for binary compatibility only; they do nothing.
extern "C" hlthunk_public int hlthunk_deprecated_func1(int, uint64_t, uint64_t,
						       uint32_t *, uint64_t *)
{
	return c_return(-EPERM);
}

extern "C" hlthunk_public int hlthunk_deprecated_func2(int, uint32_t, uint64_t,
						       uint64_t, uint64_t, uint64_t,
						       uint64_t)
{
	return c_return(-EPERM);
}

extern "C" hlthunk_public int hlthunk_deprecated_func3(int, uint32_t, uint64_t *)
{
	return c_return(-EPERM);
}
