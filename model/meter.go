package model

import (
	"sort"
	"sync"
)

// Meter records every call; it is safe for concurrent use.
type Meter struct {
	mu   sync.Mutex
	rows map[meterKey]*CostRow // guarded by mu
}

type meterKey struct {
	model string
	role  Role
}

// Record adds one finished call. A nil resp is ignored.
func (m *Meter) Record(role Role, resp *Response) {
	if resp == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rows == nil {
		m.rows = map[meterKey]*CostRow{}
	}
	k := meterKey{resp.Model, role}
	row := m.rows[k]
	if row == nil {
		row = &CostRow{Model: resp.Model, Role: role}
		m.rows[k] = row
	}
	row.Requests++
	row.PromptTokens += resp.Usage.PromptTokens
	row.CompletionTokens += resp.Usage.CompletionTokens
	if resp.Usage.Estimated {
		row.Estimated = true
	}
}

// Rows returns the cost table, one row per (model, role), in a stable order,
// with costs from prices (model id → price); unknown prices cost 0.
func (m *Meter) Rows(prices map[string]Price) (rows []CostRow, totalUSD float64) {
	m.mu.Lock()
	for _, r := range m.rows {
		rows = append(rows, *r)
	}
	m.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Model != rows[j].Model {
			return rows[i].Model < rows[j].Model
		}
		return rows[i].Role < rows[j].Role
	})
	for i := range rows {
		p := prices[rows[i].Model]
		rows[i].CostUSD = p.Cost(rows[i].PromptTokens, rows[i].CompletionTokens)
		rows[i].PriceFrom = p.From
		totalUSD += rows[i].CostUSD
	}
	return rows, totalUSD
}
