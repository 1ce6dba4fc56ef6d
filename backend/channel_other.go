//go:build !unix

package backend

import (
	"context"

	"github.com/hookexec/hook-exec/sandbox"
)

// Channels: none where there are no FIFOs.
type Channels struct{}

// NewChannels returns nil: no sandbox is streamed past its engine here.
func NewChannels(string) *Channels { return nil }

// SweepChannels removes nothing: there are none.
func SweepChannels() int { return 0 }

// Close implements nothing.
func (c *Channels) Close() error { return nil }

// Unseen is false: there are no channels to see.
func (c *Channels) Unseen() bool { return false }

// Skip implements nothing: every sandbox goes through the attach here.
func (c *Channels) Skip() {}

func (c *Channels) notSeen(*channel, error) bool { return false }

func (c *Channels) decided(*sandbox.Spec, Prepare) bool { return true }
func (c *Channels) remember(string)                     {}

// WaitProbe waits for nothing: there is no probe here.
func (c *Channels) WaitProbe(context.Context) error { return nil }

// SetRuntime implements nothing.
func (c *Channels) SetRuntime(string) {}

const verdictAttach = "attach"

type channel struct{}

func (c *Channels) make(bool) (*channel, error)                { panic("no channels") }
func (ch *channel) remove()                                    {}
func channelSpec(spec *sandbox.Spec, _ *channel) *sandbox.Spec { return spec }
func newChanneled(s Started, _ *channel) Started               { return s }

// OverChannel is false: no channel here.
func OverChannel(*sandbox.Spec) bool { return false }
