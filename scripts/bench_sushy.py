#!/usr/bin/python3
"""Benchmark peer: the same BMC reads `bringup discover` does, done with
python3-sushy (Debian package), sequentially or with a thread pool.

usage: bench_sushy.py RACK_CSV MODE [NODES]   (MODE: seq | pool:THREADS)
Reads the BMC password from the variable the manifest names (env:VAR) and
prints one JSON object: {"mode", "nodes", "ok", "failed", "wall_s"}.
"""
import concurrent.futures
import csv
import json
import os
import sys
import time

import sushy


def members(conn, path):
    """All member documents of a collection, following nextLink pages."""
    out = []
    while path:
        doc = conn.get(path).json()
        for m in doc.get("Members", []):
            out.append(conn.get(m["@odata.id"]).json())
        path = doc.get("Members@odata.nextLink")
    return out


def link(doc, name):
    v = doc.get(name)
    return v.get("@odata.id") if isinstance(v, dict) else None


def read_node(url, user, password):
    root = sushy.Sushy(url + "/redfish/v1", username=user, password=password, verify=False)
    conn = root._conn
    facts = {"macs": set()}
    for system in root.get_system_collection().get_members():
        facts["serial"] = system.serial_number
        for nic in system.ethernet_interfaces.get_members():
            facts["macs"].add((nic.permanent_mac_address or nic.mac_address or "").lower())
        facts["cpus"] = [p.max_speed_mhz for p in system.processors.get_members()]
        facts["bios"] = dict(system.bios.attributes)
        facts["drives"] = [d.serial_number for s in system.storage.get_members() for d in s.drives]
        raw = conn.get(system.path).json()
        pcie = raw.get("PCIeDevices")
        if isinstance(pcie, dict):
            facts["pcie"] = members(conn, pcie["@odata.id"])
        elif isinstance(pcie, list):
            facts["pcie"] = [conn.get(p["@odata.id"]).json() for p in pcie]
        for dev in facts.get("pcie", []):
            fl = link(dev, "PCIeFunctions")
            if fl:
                members(conn, fl)
    for chassis in root.get_chassis_collection().get_members():
        raw = conn.get(chassis.path).json()
        na = link(raw, "NetworkAdapters")
        if na:
            for adapter in members(conn, na):
                fn = link(adapter, "NetworkDeviceFunctions")
                if fn:
                    for f in members(conn, fn):
                        eth = f.get("Ethernet") or {}
                        mac = eth.get("PermanentMACAddress") or eth.get("MACAddress")
                        if mac:
                            facts["macs"].add(mac.lower())
        if link(raw, "Thermal"):
            facts["fans"] = [f.reading for f in chassis.thermal.fans]
        if link(raw, "Power"):
            facts["psus"] = [p.status.health for p in chassis.power.power_supplies]
    for manager in root.get_manager_collection().get_members():
        raw = conn.get(manager.path).json()
        facts["bmc_fw"] = manager.firmware_version
        if link(raw, "EthernetInterfaces"):
            members(conn, link(raw, "EthernetInterfaces"))
        if link(raw, "LogServices"):
            for ls in members(conn, link(raw, "LogServices")):
                if link(ls, "Entries"):
                    conn.get(link(ls, "Entries")).json()
    # Raw reads here: sushy's UpdateService object insists on an Actions
    # block that a read-only inventory walk has no use for.
    us = conn.get(root.json["UpdateService"]["@odata.id"]).json()
    facts["firmware"] = [(c.get("Id"), c.get("Version")) for c in members(conn, link(us, "FirmwareInventory"))]
    return facts


def main():
    rack, mode = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else None
    scheme = os.environ.get("BRINGUP_BMC_SCHEME", "https")
    with open(rack) as f:
        rows = [r for r in csv.DictReader(f)]
    rows = rows[:limit] if limit else rows
    jobs = []
    for r in rows:
        ref = r["bmc_password"]
        assert ref.startswith("env:"), "bench expects env: password references"
        jobs.append((scheme + "://" + r["bmc"], r["bmc_user"], os.environ[ref[4:]]))
    ok = failed = 0
    start = time.monotonic()
    if mode == "seq":
        for j in jobs:
            try:
                read_node(*j)
                ok += 1
            except Exception as e:  # a failed node is counted, not fatal
                print("sushy: %s: %s" % (j[0], e), file=sys.stderr)
                failed += 1
    else:
        threads = int(mode.split(":")[1])
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            for fut in [pool.submit(read_node, *j) for j in jobs]:
                try:
                    fut.result()
                    ok += 1
                except Exception as e:
                    print("sushy: %s" % e, file=sys.stderr)
                    failed += 1
    wall = time.monotonic() - start
    print(json.dumps({"mode": mode, "nodes": len(jobs), "ok": ok, "failed": failed, "wall_s": round(wall, 3)}))


if __name__ == "__main__":
    main()
