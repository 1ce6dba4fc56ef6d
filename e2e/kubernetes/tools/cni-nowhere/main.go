// Command cni-nowhere is the test cluster's network plugin: it gives a pod
// the interface a CNI result must name (containerd's CRI refuses a pod
// without one) and no way out. The pod's end of a veth pair gets one /32
// address and no route; the host's end stays down and joins nothing.
// (The CNI plugins' dummy would do the same, on kernels that have it.)
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/containernetworking/cni/pkg/skel"
	"github.com/containernetworking/cni/pkg/types"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
	"github.com/containernetworking/plugins/pkg/ip"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/vishvananda/netlink"
)

type conf struct {
	types.NetConf
	Address string `json:"address"` // the pod's address, a /32
}

func load(b []byte) (*conf, error) {
	var c conf
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("network configuration: %w", err)
	}
	return &c, nil
}

// hostEnd names the host's end of a sandbox's pair (15 bytes at most).
func hostEnd(containerID string) string {
	sum := sha256.Sum256([]byte(containerID))
	return "hxn" + hex.EncodeToString(sum[:6])
}

func add(args *skel.CmdArgs) error {
	c, err := load(args.StdinData)
	if err != nil {
		return err
	}
	addr, err := netlink.ParseIPNet(c.Address)
	if err != nil {
		return fmt.Errorf("address %q: %w", c.Address, err)
	}
	if ones, bits := addr.Mask.Size(); ones != bits {
		return fmt.Errorf("address %q: a single address (/%d) brings no route with it", c.Address, bits)
	}
	netns, err := ns.GetNS(args.Netns)
	if err != nil {
		return err
	}
	defer netns.Close()
	var iface current.Interface
	err = netns.Do(func(hostNS ns.NetNS) error {
		_, cont, err := ip.SetupVethWithName(args.IfName, hostEnd(args.ContainerID), 1500, "", hostNS)
		if err != nil {
			return err
		}
		link, err := netlink.LinkByName(args.IfName)
		if err != nil {
			return err
		}
		if err := netlink.AddrAdd(link, &netlink.Addr{IPNet: addr}); err != nil {
			return err
		}
		iface = current.Interface{Name: cont.Name, Mac: cont.HardwareAddr.String(), Sandbox: args.Netns}
		return nil
	})
	if err != nil {
		return err
	}
	if l, err := netlink.LinkByName(hostEnd(args.ContainerID)); err == nil {
		if err := netlink.LinkSetDown(l); err != nil {
			return err
		}
	}
	return types.PrintResult(&current.Result{
		CNIVersion: c.CNIVersion,
		Interfaces: []*current.Interface{&iface},
		IPs:        []*current.IPConfig{{Interface: current.Int(0), Address: *addr}},
	}, c.CNIVersion)
}

func del(args *skel.CmdArgs) error {
	l, err := netlink.LinkByName(hostEnd(args.ContainerID))
	var notFound netlink.LinkNotFoundError
	if errors.As(err, &notFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return netlink.LinkDel(l) // the pod's end goes with it
}

func check(*skel.CmdArgs) error { return nil }

func main() {
	skel.PluginMainFuncs(skel.CNIFuncs{Add: add, Del: del, Check: check}, version.All, "cni-nowhere: an interface and no way out")
}
