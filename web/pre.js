// Runs before the engine starts: the presets embedded at /presets are the page's presets folder
// ($ROOFLINEPLAN_PRESETS, which io/presets.cpp searches first).
Module.preRun = Module.preRun || [];
Module.preRun.push(function () { ENV.ROOFLINEPLAN_PRESETS = '/presets'; });
