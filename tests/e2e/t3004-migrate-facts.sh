#!/bin/sh
# Schema 4 keeps a node's BMC facts as one document (hw_facts) and turns the
# per-kind tables into views. Migrating a version-3 inventory (a real
# discovery of one simulated node) carries every fact over: each view lists
# exactly the rows the old table held, in the same order, and the node with
# no facts gets none.
. "$(dirname "$0")/lib.sh"
cd "$T"
inv_sql inv.db < "$BR_TOP/tests/fixtures/inventory/schema-v3.sql"
assert_eq "$(inv_sql inv.db 'pragma user_version')" 3 "fixture version"

# What version 3 holds, table by table (rows in insertion order).
q() { # table, columns, order
	cols=$(echo "$2" | sed 's/\([a-z_]*\)/t.\1/g')
	inv_sql inv.db "select n.hostname, $cols from $1 t join nodes n on n.id = t.node_id order by n.hostname, t.$3"
}
kinds="boot_order:position,entry:position
bios_attributes:name,value:name
firmware:component_id,name,version,updateable:ID
pcie_devices:device_id,address,name,manufacturer,device_class,slot,serial,lanes_in_use,max_lanes,pcie_type,max_pcie_type,health:ID
drives:drive_id,name,serial,model,protocol,media,location,health,capacity_bytes:ID
sensors:kind,name,units,health,state,serial,reading,upper_critical,lower_critical:ID
sel_entries:entry_id,created,severity,message,message_id:ID"
dump() { # suffix, the order column of v3 tables ("id") or of the views ("position")
	echo "$kinds" | while IFS=: read -r table cols order; do
		[ "$order" = ID ] && order=$2
		q "$table" "$cols" "$order" > "$table.$1"
		[ -s "$table.$1" ] || fail "$table has no rows ($1)"
	done
}
dump before id
inv_sql inv.db "select hostname, state, system_serial from nodes order by hostname" > nodes.before

bringup status --db inv.db --json > st.json
assert_eq "$(inv_sql inv.db 'pragma user_version')" 21 "version after open"
dump after position
echo "$kinds" | while IFS=: read -r table cols order; do
	cmp -s "$table.before" "$table.after" || { diff "$table.before" "$table.after" | head; fail "$table differs after migration"; }
done
inv_sql inv.db "select hostname, state, system_serial from nodes order by hostname" > nodes.after
cmp -s nodes.before nodes.after || fail "nodes changed"
assert_eq "$(inv_sql inv.db "select count(*) from hw_facts")" 1 "documents: only the discovered node"
assert_eq "$(inv_sql inv.db "select count(*) from drives d join nodes n on n.id = d.node_id where n.state = 'new'")" 0 \
	"the new node has no facts"
assert_eq "$(jq -r '.nodes[] | select(.hostname == "gpu-r01-u03") | .macs | length' st.json)" 10 "MACs kept"
assert_eq "$(inv_sql inv.db "select count(*) from volumes")" 0 \
	"step 9: documents from before volumes were read show none (and still load)"
assert_eq "$(inv_sql inv.db 'pragma integrity_check')" ok "integrity"
assert_eq "$(inv_sql inv.db 'pragma foreign_key_check' | wc -l)" 0 "foreign keys"
