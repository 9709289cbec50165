#!/bin/sh
# discover across BMC families: a --vendor mixed rack holds one node of each
# simulator personality (dell, hpe, lenovo, supermicro, openbmc, ami). For
# each: every truth host MAC is found and nothing else (the BMC's USB link
# stays out of the NICs MAAS gets and is in the facts with its role), the
# serial is trimmed, drives and PCIe devices are each counted once, and each
# MAC's source is recorded (standard resources preferred).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 11 --vendor mixed --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover --json --timeout 5 > disc.json 2>err || fail "discover exit $?: $(cat err)"
bringup status --json > st.json
truth=rack/truth.json
rf() { curl -s -u "root:$BRINGUP_BMC_PASSWORD" "http://$1$2"; }

assert_eq "$(jq -r '[.nodes[].vendor] | join(",")' $truth)" "dell,hpe,lenovo,supermicro,openbmc,ami" "families"
# PCIe devices, x16 links and their generation of each family's node.
shape() { case $1 in hpe) echo 17 16 Gen4 ;; lenovo) echo 9 8 Gen5 ;; openbmc) echo 3 2 Gen5 ;; *) echo 17 16 Gen5 ;; esac; }
for h in $(jq -r '.nodes[].hostname' $truth); do
	tq() { jq -r --arg h "$h" ".nodes[] | select(.hostname==\$h) | $1" $truth; }
	sq() { jq -r --arg h "$h" ".nodes[] | select(.hostname==\$h) | $1" st.json; }
	nq() { sqlite3 inv.db "select $1 from nodes n where n.hostname='$h'"; }
	v=$(tq .vendor)
	assert_eq "$(sq .state)" discovered "$v: $h state ($(sq .reason))"
	macs=$(sq '.macs | join(",")')
	assert_eq "$macs" "$(tq '.macs | sort | join(",")')" "$v: host MACs of $h"
	for m in $(tq '.bmc_macs[]'); do
		case ",$macs," in *",$m,"*) fail "$v: BMC MAC $m among $h's NICs" ;; esac
	done
	assert_eq "$(nq system_serial)" "$(tq .system_serial)" "$v: serial of $h"
	assert_eq "$(sqlite3 inv.db "select group_concat(serial, ',') from (select d.serial from drives d join nodes n on n.id=d.node_id where n.hostname='$h' order by 1)")" \
		"$(tq '.drive_serials | sort | join(",")')" "$v: drives of $h"
	# Each family's machine (sim/vendor.c's shape): GPUs and fabric NICs at
	# x16 and the family's generation, and the LOM.
	# shellcheck disable=SC2046
	set -- $(shape "$v")
	assert_eq "$(nq "(select count(*) from pcie_devices p where p.node_id=n.id)") $(nq "(select count(*) from pcie_devices p where p.node_id=n.id and p.lanes_in_use=16)")" \
		"$1 $2" "$v: PCIe devices and x16 links of $h"
	# HPE (Oem PCIDevices) and Supermicro (Chassis PCIeSlots) show the link
	# only there; the standard PCIeDevice wins where both exist.
	assert_eq "$(nq "(select count(*) from pcie_devices p where p.node_id=n.id and p.pcie_type='$3')")" "$2" "$v: $3 links of $h"
	# Each MAC's role in the facts is the truth's, the BMC's own port's
	# (bmc) too; past those only the Manager's end of the USB link (the
	# DGX's usb0, the X13's ToHost), as the BMC's; every MAC says where it
	# came from.
	sqlite3 inv.db "select facts from hw_facts f join nodes n on n.id=f.node_id where n.hostname='$h'" > facts.json
	tq '.mac_roles' > roles.json
	assert_eq "$(jq -r --slurpfile t roles.json '[.nics[] | select($t[0][.mac]) | "\(.mac)=\(.role)"] | sort | join(",")' facts.json)" \
		"$(tq '[.mac_roles | to_entries[] | "\(.key)=\(.value)"] | sort | join(",")')" "$v: MAC roles of $h"
	assert_eq "$(jq -r --slurpfile t roles.json '[.nics[] | select($t[0][.mac] | not) | select(.source != "ManagerEthernetInterfaces" or .role != "bmc_usb")] | length' facts.json)" \
		0 "$v: MACs outside the truth other than the BMC's end of its USB link"
	assert_eq "$(jq -r '[.nics[] | select(.source == null)] | length' facts.json)" 0 "$v: MACs without a source"
	# The BMC's own MAC is its port's, never its end of the USB link (which
	# the DGX and the X13 list among the Manager's interfaces, first), and
	# that MAC is no host NIC either; the BMC's virtual CD-ROMs the DGX
	# lists among the host's drives (serial AAAABBBBCCCC1) stay out.
	assert_eq "$(nq bmc_mac)" "$(tq .bmc_mac)" "$v: bmc_mac of $h"
	case "$(jq -r '.. | strings' facts.json | grep -c AAAABBBBCCCC1)" in 0) ;; *) fail "$v: virtual media among $h's facts" ;; esac
	bmc=$(tq .bmc)
	mgr=$(rf "$bmc" /redfish/v1/Managers | jq -r '.Members[0]."@odata.id"')
	usb_end=
	for m in $(rf "$bmc" "${mgr%/}/EthernetInterfaces" | jq -r '.Members[]."@odata.id"'); do
		e=$(rf "$bmc" "$m")
		case "$(echo "$e" | jq -r .Id)" in usb0 | ToHost) usb_end=$(echo "$e" | jq -r .MACAddress | tr 'A-F-' 'a-f:') ;; esac
	done
	case $v in
	ami | supermicro)
		[ -n "$usb_end" ] || fail "$v: no BMC end of the USB link among $h's Manager interfaces"
		[ "$usb_end" != "$(nq bmc_mac)" ] || fail "$v: the USB link's BMC end taken for $h's BMC MAC"
		case ",$macs," in *",$usb_end,"*) fail "$v: the USB link's BMC end among $h's NICs" ;; esac ;;
	*) [ -z "$usb_end" ] || fail "$v: a USB link's BMC end on $h" ;;
	esac
	# Each family's Chassis as its captures list them (not iDRAC's
	# Enclosure.Internal.0-1 on the others); drives and PCIe above were
	# still found under the family's own.
	chassis=$(rf "$bmc" /redfish/v1/Chassis | jq -r '[.Members[]."@odata.id" | rtrimstr("/") | split("/")[-1]] | join(",")')
	case $v in
	dell) want=System.Embedded.1,Enclosure.Internal.0-1 ;; hpe) want=1 ;; lenovo) want=1,3 ;;
	supermicro) want=1,NVMeSSD.0.Group.0.StorageBackplane ;; openbmc) want=Chassis_0,Bluefield_BMC ;;
	ami) want=Self,CPUBaseboard ;;
	esac
	assert_eq "$chassis" "$want" "$v: Chassis of $h"
	eval "src_$v=\$(jq -r '[.nics[] | select(.role==\"host\") | .source] | unique | join(\",\")' facts.json)"
done
# Where MACs came from: BootOptions (openbmc) and HPE's OEM adapters where the
# standard resources have none; standard ones where they do (Lenovo also has
# BootOptions naming the same MACs).
assert_eq "$src_openbmc" BootOptions "openbmc MAC source"
assert_eq "$src_hpe" HpeBaseNetworkAdapter "hpe MAC source"
case "$src_lenovo" in "" | *BootOptions*) fail "lenovo MAC sources: '$src_lenovo'" ;; esac
# The DGX lists its virtual CD-ROMs among the drives (so the check above
# could fail), and the X13 calls the host end of its USB link ToManager.
ami_bmc=$(jq -r '.nodes[] | select(.vendor=="ami") | .bmc' $truth)
assert_eq "$(rf "$ami_bmc" '/redfish/v1/Chassis/Self/Drives?$skip=18' | jq -r '[.Members[]."@odata.id" | split("/")[-1]] | join(",")')" \
	USB_Device2_PortA,USB_Device4_PortA "ami virtual media"
assert_eq "$(rf "$ami_bmc" /redfish/v1/Chassis/Self/Drives/USB_Device2_PortA | jq -r .SerialNumber)" AAAABBBBCCCC1 "ami virtual media serial"
smc_bmc=$(jq -r '.nodes[] | select(.vendor=="supermicro") | .bmc' $truth)
assert_eq "$(rf "$smc_bmc" /redfish/v1/Systems/1/EthernetInterfaces | jq -r '.Members[-1]."@odata.id"')" \
	/redfish/v1/Systems/1/EthernetInterfaces/ToManager "supermicro USB link's host end"
# The GPU baseboard System beside the host was not taken for it.
assert_eq "$(jq -r '.nodes[] | select(.vendor=="openbmc") | .system_serial' $truth)" \
	"$(sqlite3 inv.db "select system_serial from nodes where hostname=(select hostname from nodes order by id limit 1 offset 4)")" "openbmc host System"
