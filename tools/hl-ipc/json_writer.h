// SPDX-License-Identifier: MIT
// JsonWriter: writes one JSON document to a FILE, indented, with the
// commas and escapes right; the caller only says what comes next.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace hlipc {

class JsonWriter {
public:
	explicit JsonWriter(FILE *out) : out_(out) {}
	~JsonWriter();
	JsonWriter(const JsonWriter &) = delete;
	JsonWriter &operator=(const JsonWriter &) = delete;

	void begin_object();
	void end_object();
	void begin_array();
	void end_array();
	// The name of the next member of the current object.
	JsonWriter &key(const char *k);

	void value(const std::string &s) { value(s.c_str()); }
	void value(const char *s);  // nullptr is written as null
	void value(bool b);
	void value(int v) { value(static_cast<int64_t>(v)); }
	void value(unsigned v) { value(static_cast<uint64_t>(v)); }
	void value(int64_t v);
	void value(uint64_t v);
	void value(double v);  // non-finite values are written as null
	void null();

	template <typename T> void member(const char *k, const T &v)
	{
		key(k);
		value(v);
	}

private:
	void write_string(const char *s);
	void before_value();
	void newline();

	FILE *out_;
	// Per open container: true for an object; and whether it has members.
	std::vector<std::pair<bool, bool>> stack_;
	bool after_key_ = false;
};

}  // namespace hlipc
