// SPDX-License-Identifier: MIT
#include "json_writer.h"

#include <cinttypes>
#include <cmath>

namespace hlipc {

JsonWriter::~JsonWriter()
{
	if (stack_.empty())
		fputc('\n', out_);
}

void JsonWriter::newline()
{
	fputc('\n', out_);
	for (size_t i = 0; i < stack_.size(); i++)
		fputs("  ", out_);
}

void JsonWriter::before_value()
{
	if (after_key_) {
		after_key_ = false;
		return;
	}
	if (stack_.empty())
		return;
	if (stack_.back().second)
		fputc(',', out_);
	stack_.back().second = true;
	newline();
}

JsonWriter &JsonWriter::key(const char *k)
{
	before_value();
	write_string(k);
	fputs(": ", out_);
	after_key_ = true;
	return *this;
}

void JsonWriter::begin_object()
{
	before_value();
	fputc('{', out_);
	stack_.push_back({true, false});
}

void JsonWriter::begin_array()
{
	before_value();
	fputc('[', out_);
	stack_.push_back({false, false});
}

void JsonWriter::end_object()
{
	bool had = stack_.back().second;
	stack_.pop_back();
	if (had)
		newline();
	fputc('}', out_);
}

void JsonWriter::end_array()
{
	bool had = stack_.back().second;
	stack_.pop_back();
	if (had)
		newline();
	fputc(']', out_);
}

void JsonWriter::value(const char *s)
{
	if (!s) {
		null();
		return;
	}
	before_value();
	write_string(s);
}

void JsonWriter::write_string(const char *s)
{
	fputc('"', out_);
	for (const unsigned char *p = reinterpret_cast<const unsigned char *>(s);
	     *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out_); break;
		case '\\': fputs("\\\\", out_); break;
		case '\n': fputs("\\n", out_); break;
		case '\t': fputs("\\t", out_); break;
		case '\r': fputs("\\r", out_); break;
		default:
			if (*p < 0x20)
				fprintf(out_, "\\u%04x", *p);
			else
				fputc(*p, out_);
		}
	}
	fputc('"', out_);
}

void JsonWriter::value(bool b)
{
	before_value();
	fputs(b ? "true" : "false", out_);
}

void JsonWriter::value(int64_t v)
{
	before_value();
	fprintf(out_, "%" PRId64, v);
}

void JsonWriter::value(uint64_t v)
{
	before_value();
	fprintf(out_, "%" PRIu64, v);
}

void JsonWriter::value(double v)
{
	if (!std::isfinite(v)) {
		null();
		return;
	}
	before_value();
	fprintf(out_, "%.6g", v);
}

void JsonWriter::null()
{
	before_value();
	fputs("null", out_);
}

}  // namespace hlipc
