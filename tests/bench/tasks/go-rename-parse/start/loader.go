package config

import "os"

// Load reads and parses the configuration file at path.
func Load(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseCfg(string(data)), nil
}
