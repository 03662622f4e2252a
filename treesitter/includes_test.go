package treesitter

import (
	"fmt"
	"strings"
	"testing"
)

// driverTree is a small kernel-like tree: a driver whose main.c declares
// its static functions before defining them and includes its own header,
// whose names (adapter, hw) forty other drivers' headers define too, so the
// references alone cannot tell which header is the driver's; the shared
// headers under include/ are what every driver uses.
func driverTree() map[string]string {
	files := map[string]string{
		"include/linux/netdevice.h": "struct net_device { int mtu; };\nint register_netdev(struct net_device *dev);\nvoid netif_wake_queue(struct net_device *dev);\n",
		"include/linux/skbuff.h":    "struct sk_buff { int len; };\nvoid kfree_skb(struct sk_buff *skb);\nstruct sk_buff *alloc_skb(int size);\n",
		"drivers/net/e1000/e1000.h": "#include <linux/netdevice.h>\nstruct adapter { struct net_device *netdev; int hw; };\n#define E1000_TX_RING 256\nint e1000_up(struct adapter *a);\nvoid e1000_down(struct adapter *a);\n",
		"drivers/net/e1000/main.c": `#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include "e1000.h"

static int e1000_clean_tx(struct adapter *a);
static void e1000_reset(struct adapter *a);

static int e1000_clean_tx(struct adapter *a)
{
	struct sk_buff *skb = alloc_skb(a->hw);
	kfree_skb(skb);
	netif_wake_queue(a->netdev);
	return 0;
}

static void e1000_reset(struct adapter *a)
{
	e1000_clean_tx(a);
}

int e1000_up(struct adapter *a)
{
	e1000_reset(a);
	return register_netdev(a->netdev);
}
`,
	}
	for i := range 40 {
		dir := fmt.Sprintf("drivers/net/d%02d", i)
		files[dir+"/d.h"] = fmt.Sprintf("struct adapter { int hw; };\nint d%02d_up(struct adapter *a);\nint d%02d_probe(struct adapter *a);\n", i, i)
		files[dir+"/main.c"] = fmt.Sprintf("#include <linux/netdevice.h>\n#include <linux/skbuff.h>\n#include \"d.h\"\n"+
			"int d%02d_up(struct adapter *a)\n{\n\tstruct sk_buff *skb = alloc_skb(1);\n\tkfree_skb(skb);\n\tnetif_wake_queue(0);\n\treturn register_netdev(0);\n}\n", i)
	}
	return files
}

// The focused map of a C file lists each of its functions once (not its
// prototype and its definition) and names the header it includes.
func TestFocusedCMapHasIncludesAndNoDuplicates(t *testing.T) {
	root, paths := writeTree(t, driverTree())
	ix := NewIndex(root, "")
	if _, err := ix.Build(t.Context(), paths); err != nil {
		t.Fatal(err)
	}
	m := ix.Map(MapRequest{Focus: []string{"drivers/net/e1000/main.c"}, Task: "count dropped packets in the tx clean", Tokens: 120})
	if !contains(mapFiles(m), "drivers/net/e1000/e1000.h") {
		t.Errorf("the map leaves out the header the focus file includes:\n%s", m)
	}
	file := ""
	seen := map[string]bool{}
	for _, line := range strings.Split(m, "\n") {
		if !strings.HasPrefix(line, " ") {
			file = line
			continue
		}
		if seen[file+line] {
			t.Errorf("%s lists %q twice:\n%s", file, line, m)
		}
		seen[file+line] = true
	}
	if strings.Count(m, "e1000_clean_tx(") != 1 {
		t.Errorf("e1000_clean_tx is listed %d times, want once (its definition):\n%s", strings.Count(m, "e1000_clean_tx("), m)
	}
	// A header's prototypes are its interface: they stay.
	if tags := ix.FileTags("drivers/net/e1000/e1000.h"); !hasDef(tags, "e1000_up") {
		t.Errorf("the header's prototype e1000_up is gone: %v", tags)
	}
}

// FuzzIncludes: whatever a focus file holds, includedBy names only indexed
// files other than itself, with weights in (0, 1].
func FuzzIncludes(f *testing.F) {
	f.Add("#include \"x.h\"\n#include <linux/y.h>\n", "a/m.c")
	f.Add("import { a } from './x';\nconst b = require(\"../b\");\n", "a/m.ts")
	f.Add("#include \"../../../../etc/passwd\"\n#  include \"m.c\"\n", "a/m.c")
	f.Fuzz(func(t *testing.T, src, name string) {
		if name != "a/m.c" && name != "a/m.ts" {
			name = "a/m.c"
		}
		root, _ := writeTree(t, map[string]string{name: src})
		indexed := map[string]bool{"a/x.h": true, "x.h": true, "include/linux/y.h": true, "a/x.ts": true, "b.ts": true, name: true}
		ix := NewIndex(root, "")
		for p, w := range ix.includedBy(name, func(p string) bool { return indexed[p] }) {
			if !indexed[p] || p == name || w <= 0 || w > 1 {
				t.Fatalf("includedBy(%q) gave %q (weight %v)", src, p, w)
			}
		}
	})
}
