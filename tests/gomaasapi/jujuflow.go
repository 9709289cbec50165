// jujuflow drives a MAAS API through Juju's client library, gomaasapi (the
// Debian package golang-github-juju-gomaasapi-dev), in the order Juju's MAAS
// provider uses it: the controller and its version, zones, domains, spaces,
// tags, machines (gomaasapi checks every machine against its schema on each
// read), allocate, owner data, start (deploy), release.
//
// It reads the machine list until the machine named by -host is Ready,
// recording every status any machine was seen in, then allocates, deploys
// and releases that machine. It prints one line per step and, last,
// "states: ..." and "ok"; any failure prints "FAIL: ..." and exits 1.
//
// Built in GOPATH mode against /usr/share/gocode, no module downloads.
package main

import (
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/juju/gomaasapi"
)

var seen = map[string]bool{}

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	os.Exit(1)
}

// machines lists machines (gomaasapi's schema check runs on each) and
// records the status of every one.
func machines(c gomaasapi.Controller, args gomaasapi.MachinesArgs) []gomaasapi.Machine {
	ms, err := c.Machines(args)
	if err != nil {
		fail("machines: %v", err)
	}
	for _, m := range ms {
		seen[m.StatusName()] = true
	}
	return ms
}

// waitStatus reads the machine with system id until it is in want.
func waitStatus(c gomaasapi.Controller, id, want string, timeout time.Duration) gomaasapi.Machine {
	deadline := time.Now().Add(timeout)
	for {
		ms := machines(c, gomaasapi.MachinesArgs{SystemIDs: []string{id}})
		if len(ms) != 1 {
			fail("machine %s: %d listed", id, len(ms))
		}
		if ms[0].StatusName() == want {
			return ms[0]
		}
		if time.Now().After(deadline) {
			fail("machine %s still %s (%s) after %v waiting for %s", id, ms[0].StatusName(),
				ms[0].StatusMessage(), timeout, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func main() {
	url := flag.String("url", "", "MAAS URL, e.g. http://127.0.0.1:5240/MAAS/")
	key := flag.String("key", "", "MAAS API key consumer:token:secret")
	host := flag.String("host", "", "hostname of the machine to allocate, deploy and release")
	timeout := flag.Duration("timeout", 30*time.Second, "time to wait for each status")
	flag.Parse()
	if *url == "" || *key == "" || *host == "" {
		fail("usage: jujuflow -url URL -key KEY -host HOSTNAME")
	}

	c, err := gomaasapi.NewController(gomaasapi.ControllerArgs{BaseURL: *url, APIKey: *key})
	if err != nil {
		fail("controller: %v", err)
	}
	version, _, err := c.APIVersionInfo()
	if err != nil {
		fail("version: %v", err)
	}
	fmt.Printf("controller: version %s, capabilities %s\n", version,
		strings.Join(c.Capabilities().SortedValues(), " "))

	zones, err := c.Zones()
	if err != nil {
		fail("zones: %v", err)
	}
	for _, z := range zones {
		fmt.Printf("zone: %s\n", z.Name())
	}
	domains, err := c.Domains()
	if err != nil {
		fail("domains: %v", err)
	}
	for _, d := range domains {
		fmt.Printf("domain: %s\n", d.Name())
	}
	spaces, err := c.Spaces()
	if err != nil {
		fail("spaces: %v", err)
	}
	fmt.Printf("spaces: %d\n", len(spaces))
	tags, err := c.Tags()
	if err != nil {
		fail("tags: %v", err)
	}
	fmt.Printf("tags: %d\n", len(tags))

	// Wait for the machine to be Ready, reading all machines as Juju does.
	var id string
	deadline := time.Now().Add(*timeout)
	for id == "" {
		for _, m := range machines(c, gomaasapi.MachinesArgs{}) {
			if m.Hostname() == *host && m.StatusName() == "Ready" {
				id = m.SystemID()
			}
		}
		if id == "" {
			if time.Now().After(deadline) {
				fail("%s not Ready after %v", *host, *timeout)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	fmt.Printf("ready: %s %s\n", *host, id)

	// A constraint no machine meets: MAAS's 409, gomaasapi's NoMatchError.
	_, _, err = c.AllocateMachine(gomaasapi.AllocateMachineArgs{Tags: []string{"no-such-tag"}})
	if !gomaasapi.IsNoMatchError(err) {
		fail("allocate with an unknown tag: want a no-match error, got %v", err)
	}
	fmt.Printf("allocate no-match: ok\n")

	m, _, err := c.AllocateMachine(gomaasapi.AllocateMachineArgs{Hostname: *host, Zone: "default",
		AgentName: "jujuflow"})
	if err != nil {
		fail("allocate: %v", err)
	}
	if m.SystemID() != id || m.StatusName() != "Allocated" || m.Zone().Name() != "default" {
		fail("allocate: got %s %s in zone %s", m.SystemID(), m.StatusName(), m.Zone().Name())
	}
	seen[m.StatusName()] = true
	fmt.Printf("allocated: %s, %d CPUs, %d MiB, %d disks, boot interface %s\n", m.SystemID(), m.CPUCount(),
		m.Memory(), len(m.PhysicalBlockDevices()), m.BootInterface().MACAddress())

	if err := m.SetOwnerData(map[string]string{"juju-model-uuid": "jujuflow"}); err != nil {
		fail("set owner data: %v", err)
	}
	owned := machines(c, gomaasapi.MachinesArgs{OwnerData: map[string]string{"juju-model-uuid": "jujuflow"}})
	if len(owned) != 1 || owned[0].SystemID() != id {
		fail("machines by owner data: %d", len(owned))
	}
	fmt.Printf("owner data: ok\n")

	userData := base64.StdEncoding.EncodeToString([]byte("#cloud-config\n"))
	if err := m.Start(gomaasapi.StartArgs{DistroSeries: "jammy", UserData: userData}); err != nil {
		fail("start: %v", err)
	}
	seen[m.StatusName()] = true
	m = waitStatus(c, id, "Deployed", *timeout)
	root := ""
	for _, d := range m.BlockDevices() {
		for _, p := range d.Partitions() {
			if fs := p.FileSystem(); fs != nil && fs.MountPoint() == "/" {
				root = d.Name()
			}
		}
	}
	if root == "" || m.OperatingSystem() != "ubuntu" || m.DistroSeries() != "jammy" {
		fail("deployed: root on %q, %s %s", root, m.OperatingSystem(), m.DistroSeries())
	}
	fmt.Printf("deployed: %s %s, / on %s, addresses %v\n", m.OperatingSystem(), m.DistroSeries(), root,
		m.IPAddresses())

	if err := c.ReleaseMachines(gomaasapi.ReleaseMachinesArgs{SystemIDs: []string{id}, Comment: "jujuflow"}); err != nil {
		fail("release: %v", err)
	}
	waitStatus(c, id, "Ready", *timeout)
	fmt.Printf("released: ok\n")

	// A machine that cannot be released: MAAS's 409, CannotCompleteError.
	for _, other := range machines(c, gomaasapi.MachinesArgs{}) {
		if other.StatusName() == "New" {
			err := c.ReleaseMachines(gomaasapi.ReleaseMachinesArgs{SystemIDs: []string{other.SystemID()}})
			if !gomaasapi.IsCannotCompleteError(err) {
				fail("release of a New machine: want cannot-complete, got %v", err)
			}
			fmt.Printf("release New: refused\n")
			break
		}
	}

	var states []string
	for s := range seen {
		states = append(states, s)
	}
	sort.Strings(states)
	fmt.Printf("states: %s\n", strings.Join(states, ","))
	fmt.Printf("ok\n")
}
