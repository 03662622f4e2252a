package config

// Defaults are the settings used when no file is given.
var Defaults = ParseCfg("level = info\nformat = text")
