package report

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// page is what the HTML template renders.
type page struct {
	Title, Period string
	CSS           template.CSS
	Facts         []fact
	Spreads       []spreadRow
	Warnings      []string
	Errors        []string
	// Charts are inline SVG documents rendered by vgsvg, which escapes
	// every text it draws.
	Charts []template.HTML
	// Moves are the first maxMoveRows moves; MoreMoves counts the rest.
	Moves     []moveRow
	MoreMoves int
}

// moveRow is one row of the table of moves.
type moveRow struct{ Cycle, Pod, From, To, Relief, Measured, Outcome string }

// maxMoveRows caps the table of moves, so that a large simulation's page
// stays readable.
const maxMoveRows = 200

// fact is one row of the summary table.
type fact struct{ Name, Value string }

// spreadRow compares a figure at the first cycle's start and at the end.
type spreadRow struct{ Name, Start, End string }

const pageCSS = `body{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;margin:1.5em auto;max-width:62em;color:#222;padding:0 1em}
h1{font-size:1.4em;margin-bottom:.2em}
h2{font-size:1.1em;margin-top:1.4em}
p.period{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.5em 1.5em .5em 0;display:inline-table;vertical-align:top}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f2f2f2}
figure.chart{margin:1em 0;padding:0;border:1px solid #b4b4b4;width:fit-content;max-width:100%;line-height:0}
td.none{color:#777}
svg{max-width:100%;height:auto}
`

const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{.CSS}}</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="period">{{.Period}}</p>
<h2>Summary</h2>
<table>
<tbody>
{{- range .Facts}}
<tr><th scope="row">{{.Name}}</th><td>{{.Value}}</td></tr>
{{- end}}
</tbody>
</table>
<table>
<thead><tr><th scope="col">max / mean / stddev</th><th scope="col">first cycle</th><th scope="col">end</th></tr></thead>
<tbody>
{{- range .Spreads}}
<tr><th scope="row">{{.Name}}</th><td class="num">{{.Start}}</td><td class="num">{{.End}}</td></tr>
{{- end}}
</tbody>
</table>
{{- if .Warnings}}
<h2>Warnings</h2>
<ul>
{{- range .Warnings}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
{{- if .Errors}}
<h2>Errors</h2>
<ul>
{{- range .Errors}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
<h2>Charts</h2>
{{- range .Charts}}
<figure class="chart">
{{.}}</figure>
{{- end}}
<h2>Moves</h2>
{{- if .Moves}}
<p>Where each evicted pod's replacement went; relief is the cpu usage the eviction was planned to take off its node, measured what its node's usage fell by one usage window later, and the outcome what the eviction did then (relieved, partly_relieved, not_relieved, destination_hot, replacement_pending, unknown).</p>
<table class="moves">
<thead><tr><th scope="col">cycle</th><th scope="col">pod</th><th scope="col">from node</th><th scope="col">to node</th><th scope="col">relief</th><th scope="col">measured</th><th scope="col">outcome</th></tr></thead>
<tbody>
{{- range .Moves}}
<tr><td class="num">{{.Cycle}}</td><td>{{.Pod}}</td><td>{{.From}}</td>{{if .To}}<td>{{.To}}</td>{{else}}<td class="none">pending</td>{{end}}<td class="num">{{.Relief}}</td><td class="num">{{.Measured}}</td><td>{{.Outcome}}</td></tr>
{{- end}}
</tbody>
</table>
{{- if .MoreMoves}}
<p>… and {{.MoreMoves}} more moves (the Result's JSON lists them all).</p>
{{- end}}
{{- else}}
<p>No pod was evicted.</p>
{{- end}}
</body>
</html>
`

// writeHTML renders the page: title, summary tables and the charts.
func writeHTML(w *bytes.Buffer, in input, cs []chart) error {
	svgs, err := chartSVGs(cs)
	if err != nil {
		return err
	}
	tmpl, err := template.New("report").Parse(pageTemplate)
	if err != nil {
		return fmt.Errorf("parsing the HTML template: %w", err)
	}
	pg := newPage(in.res)
	for _, s := range svgs {
		pg.Charts = append(pg.Charts, template.HTML(s)) //nolint:gosec // vgsvg escapes all text.
	}
	if err := tmpl.Execute(w, pg); err != nil {
		return fmt.Errorf("rendering the HTML report: %w", err)
	}
	return nil
}

// newPage fills the page's text from the Result's summary.
func newPage(res *simulator.Result) page {
	s := res.Summary
	return page{
		Title:     fmt.Sprintf("Descheduler simulation: %d cycles", s.Cycles),
		Period:    period(res),
		CSS:       template.CSS(pageCSS + "svg " + fontCSS + "\n"),
		Facts:     facts(s),
		Spreads:   spreads(s),
		Warnings:  res.Warnings,
		Errors:    res.Errors,
		Moves:     moveRows(res.Moves, maxMoveRows),
		MoreMoves: max(0, len(res.Moves)-maxMoveRows),
	}
}

// moveRows formats the first limit moves. A pod without a controller has
// no replacement, so it goes nowhere.
func moveRows(moves []simulator.Move, limit int) []moveRow {
	out := make([]moveRow, 0, min(limit, len(moves)))
	for _, m := range moves[:min(limit, len(moves))] {
		to := m.To
		if m.Replacement == "" {
			to = "– (not re-created)"
		}
		measured, result := "–", "–"
		if m.MeasuredReliefMilliCPU != nil {
			measured = strconv.FormatInt(*m.MeasuredReliefMilliCPU, 10) + "m cpu"
		}
		if m.Outcome != "" {
			result = m.Outcome
		}
		out = append(out, moveRow{Cycle: strconv.Itoa(m.Cycle), Pod: m.Pod, From: m.From, To: to,
			Relief: strconv.FormatInt(m.ReliefMilliCPU, 10) + "m cpu", Measured: measured, Outcome: result})
	}
	return out
}

// period tells when the simulation ran, in UTC.
func period(res *simulator.Result) string {
	first := res.Cycles[0].Time.UTC().Format(time.RFC3339)
	if res.End.Time.IsZero() {
		return "From " + first + "."
	}
	return fmt.Sprintf("From %s (first cycle) to %s (end state).", first, res.End.Time.UTC().Format(time.RFC3339))
}

func facts(s simulator.Summary) []fact {
	rep := s.Repeated
	return []fact{
		{"Cycles", strconv.Itoa(s.Cycles)},
		{"Interval", orDash(s.Interval)},
		{"Seed", strconv.FormatUint(s.Seed, 10)},
		{"Usage noise", noise(s.Noise)},
		{"CPU target", target(s, cpuRes)},
		{"Memory target", target(s, memRes)},
		{"Evictions", fmt.Sprintf("%d simulated, %d blocked by a PodDisruptionBudget", s.TotalEvictions, s.BlockedEvictions)},
		{"Repeated evictions within the cooldown (" + orDash(rep.Cooldown) + ")", strconv.Itoa(rep.WithinCooldown)},
		{"Repeated evictions within 1h", strconv.Itoa(rep.WithinHour)},
		{"Cycles until no node over target", untilBalanced(s)},
		{"Pods left pending", strconv.Itoa(s.PodsLeftPending)},
	}
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// noise formats the noise fraction as ±percent.
func noise(n float64) string {
	if n == 0 {
		return "none"
	}
	return "±" + percent(n*100)
}

// target formats the target of r, or says why there is none.
func target(s simulator.Summary, r resource) string {
	if t, ok := s.Target[string(r)]; ok {
		return percent(t)
	}
	if len(s.Target) == 0 {
		return "none (no LowNodeUtilization plugin)"
	}
	return "none for " + string(r)
}

func untilBalanced(s simulator.Summary) string {
	switch {
	case s.CyclesUntilNoNodeOverTarget != nil && *s.CyclesUntilNoNodeOverTarget == 0:
		return "0 (no node was over target at the start)"
	case s.CyclesUntilNoNodeOverTarget != nil:
		return strconv.Itoa(*s.CyclesUntilNoNodeOverTarget)
	case len(s.Target) == 0:
		return "n/a (no LowNodeUtilization plugin)"
	default:
		return "not reached: a node stayed over target"
	}
}

func spreads(s simulator.Summary) []spreadRow {
	return []spreadRow{
		{"cpu usage", spread(s.CPUUsage.Start), spread(s.CPUUsage.End)},
		{"cpu requests", spread(s.CPURequests.Start), spread(s.CPURequests.End)},
	}
}

// spread formats max / mean / stddev, or says the figures are unknown.
func spread(sp *simulator.Spread) string {
	if sp == nil {
		return "unknown"
	}
	return fmt.Sprintf("%s%% / %s%% / %s%%", num(sp.Max), num(sp.Mean), num(sp.StdDev))
}

// num formats v with one decimal.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', 1, 64)
}
