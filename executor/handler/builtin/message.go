package builtin

import (
	"context"
	"errors"
	"fmt"
	"text/template"
	"text/template/parse"
)

// A notification's message is a text/template written by whoever wrote the
// hook, a plugin or a project included, and it runs in hook-exec's own
// process: text/template has no bound of its own on work or memory
// ({{range 100000}} nests; printf "%01000000d" pads to a megabyte). These
// are the bounds every message runs under, whatever its scope.
const (
	// maxTemplate bounds the message's text, so that one step (one run of
	// a list of actions) is short and few values are live at once.
	maxTemplate = 4 << 10
	// maxSteps bounds the runs of range bodies and templates together:
	// a message that ranges over an event's list prints a line or so each
	// time and reaches maxMessage well before. It bounds recursion too,
	// whose unwinding costs time and stack by the depth.
	maxSteps = 1000
	// maxMade bounds the bytes that print, printf, println, html, js and
	// urlquery make in all, in one execution.
	maxMade = 64 << 10
	// maxWidth bounds a printf width or precision.
	maxWidth = 256
)

// ErrMessageLimit: a notification message went past one of its bounds.
var ErrMessageLimit = errors.New("notification message past its bound")

// LimitError says which bound a message went past.
type LimitError struct {
	Bound string // "steps", "width", "precision" or "size"
	Func  string // the function that went past it; "" for steps
	Max   int64
	Got   int64
}

func (e *LimitError) Error() string {
	switch e.Bound {
	case "steps":
		return fmt.Sprintf("ran more than %d steps (runs of range bodies and templates)", e.Max)
	case "size":
		return fmt.Sprintf("%s: %d bytes made in all, more than %d", e.Func, e.Got, e.Max)
	}
	return fmt.Sprintf("%s: %s %d, more than %d", e.Func, e.Bound, e.Got, e.Max)
}

func (e *LimitError) Unwrap() error { return ErrMessageLimit }

// budget is one execution's account: the steps taken, the bytes made,
// and the context that ends it.
type budget struct {
	ctx      context.Context
	maxSteps int64
	steps    int64
	made     int64
}

// stepFunc is the function the budget inserts at the head of every range
// body and every template: text/template stops at the first function that
// returns an error, in the goroutine that executes it, so nothing is left
// running. A message may call it too: that only counts one more step.
const stepFunc = "step"

func (b *budget) step() (string, error) {
	if err := b.ctx.Err(); err != nil {
		return "", fmt.Errorf("stopped: %w", err)
	}
	if b.steps++; b.steps > b.maxSteps {
		return "", &LimitError{Bound: "steps", Max: b.maxSteps, Got: b.steps}
	}
	return "", nil
}

// account counts what a function made and refuses it past maxMade.
func (b *budget) account(fn, s string) (string, error) {
	if b.made += int64(len(s)); b.made > maxMade {
		return "", &LimitError{Bound: "size", Func: fn, Max: maxMade, Got: b.made}
	}
	return s, nil
}

// funcs replace text/template's builtins that make strings (Funcs may
// override them) with bounded ones, and add the step.
func (b *budget) funcs() template.FuncMap {
	made := func(name string, f func(...any) string) func(...any) (string, error) {
		return func(args ...any) (string, error) { return b.account(name, f(args...)) }
	}
	return template.FuncMap{
		stepFunc:   b.step,
		"print":    made("print", fmt.Sprint),
		"println":  made("println", fmt.Sprintln),
		"html":     made("html", template.HTMLEscaper),
		"js":       made("js", template.JSEscaper),
		"urlquery": made("urlquery", template.URLQueryEscaper),
		"printf": func(format string, args ...any) (string, error) {
			if err := checkFormat(format, args); err != nil {
				return "", err
			}
			return b.account("printf", fmt.Sprintf(format, args...))
		},
	}
}

// parseMessage parses a message with the budget's functions and puts a
// step at the head of every template and every range body: the only lists
// that run more than once for one run of the list around them.
func parseMessage(text string, b *budget) (*template.Template, error) {
	if len(text) > maxTemplate {
		return nil, fmt.Errorf("%d bytes, more than %d", len(text), maxTemplate)
	}
	t, err := template.New("m").Option("missingkey=zero").Funcs(b.funcs()).Parse(text)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil && tt.Root != nil {
			insertSteps(tt.Root)
		}
	}
	return t, nil
}

func insertSteps(root *parse.ListNode) {
	walk(root, 0, func(n parse.Node, _ int) {
		if r, ok := n.(*parse.RangeNode); ok {
			r.List.Nodes = append([]parse.Node{stepAction(r.Position())}, r.List.Nodes...)
		}
	})
	root.Nodes = append([]parse.Node{stepAction(root.Position())}, root.Nodes...)
}

// walk calls f with every node in l and in the lists of its if, with and
// range actions, and how many ranges enclose the node.
func walk(l *parse.ListNode, ranges int, f func(n parse.Node, ranges int)) {
	for _, n := range l.Nodes {
		f(n, ranges)
		var br *parse.BranchNode
		in := ranges
		switch n := n.(type) {
		case *parse.IfNode:
			br = &n.BranchNode
		case *parse.WithNode:
			br = &n.BranchNode
		case *parse.RangeNode:
			br, in = &n.BranchNode, ranges+1
		default:
			continue
		}
		walk(br.List, in, f)
		if br.ElseList != nil {
			walk(br.ElseList, ranges, f)
		}
	}
}

// stepAction is {{step}} at pos: an error there is reported at the range
// or template it counts.
func stepAction(pos parse.Pos) *parse.ActionNode {
	id := parse.NewIdentifier(stepFunc).SetPos(pos)
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}}
}

// errMessageFull: the message reached what is delivered; the rest is not
// made at all.
var errMessageFull = errors.New("message full")

// messageWriter keeps the first max bytes written and fails past them,
// which stops the template.
type messageWriter struct {
	b   []byte
	max int
}

func (w *messageWriter) Write(p []byte) (int, error) {
	room := w.max - len(w.b)
	if len(p) > room {
		w.b = append(w.b, p[:room]...)
		return room, errMessageFull
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

// checkUntrustedMessage refuses, at load, what a project or plugin message
// has no use for and an attack needs: a range over anything but a field
// of the event (a number literal, a variable, a function's result), a
// range in a range, and template calls (which can recurse). The runtime
// budget bounds the rest; this tells the author early.
func checkUntrustedMessage(text string) error {
	t, err := parseMessage(text, &budget{ctx: context.Background()})
	if err != nil {
		return err
	}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		if err := checkUntrustedList(tt.Tree, tt.Root); err != nil {
			return err
		}
	}
	return nil
}

func checkUntrustedList(tree *parse.Tree, root *parse.ListNode) error {
	var err error
	walk(root, 0, func(n parse.Node, ranges int) {
		var why string
		switch n := n.(type) {
		case *parse.TemplateNode:
			why = n.String() + ": a project or plugin message calls no template"
		case *parse.RangeNode:
			if ranges > 0 {
				why = "a range in a range: a project or plugin message ranges one level deep"
			} else if !overEventField(n.Pipe) {
				why = "range over " + n.Pipe.String() + ": a project or plugin message ranges only over a field of the event (.data.args)"
			}
		}
		if why != "" && err == nil {
			loc, _ := tree.ErrorContext(n)
			err = fmt.Errorf("%s: %s", loc, why)
		}
	})
	return err
}

// overEventField says whether a range's pipeline is a field chain alone:
// .data.args, $.data.args or $v.items, never a number, a bare variable or
// a function's result.
func overEventField(p *parse.PipeNode) bool {
	if len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode:
		return true
	case *parse.VariableNode:
		return len(a.Ident) > 1
	}
	return false
}
