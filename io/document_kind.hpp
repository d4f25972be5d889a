#pragma once
// Which description a document is, told by its top-level keys before any field is read: a GPU
// file given as the model is named for what it is, and a file that is no description at all
// (`--model /etc/passwd`) is refused without quoting a line of it.
#include "io/schema.hpp"
#include "io/yaml_document.hpp"

namespace roofline::io {

// Throws InputError at the document's first key when none of its keys is a field of `expected`
// (a model's also counts a Hugging Face config.json): "this looks like a GPU description; pass
// it as --gpu", or "none of its keys is a field". A document that is not a mapping passes: the
// reader says so.
void check_document_kind(const YamlDocument& doc, SchemaKind expected);

}  // namespace roofline::io
