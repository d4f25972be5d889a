// A backend plugin from another build: it speaks a plugin ABI version this rooflineplan does not,
// so the loader must refuse it before calling anything else in it.
extern "C" __attribute__((visibility("default"))) int rooflineplan_plugin_abi_version() { return 0; }
