/* Thermal (fans, temperatures) and Power (supplies) in iDRAC9's legacy
 * Thermal/Power resources, which every iDRAC client still reads. */
#include <string.h>

#include "idrac.h"

#define FAN_RPM_MAX 18000

json_t *sim_r_thermal(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	int bogus = sim_fault_has(&n->faults, SIM_F_THERMAL_BOGUS);
	json_t *t = sim_res("#Thermal.v1_7_0.Thermal", "Thermal", "Thermal", SIM_R_CHASSIS "/Thermal");
	json_t *fans = json_array(), *temps = json_array();
	char name[32], member[64];

	for (int i = 0; i < sim_node_shape(n)->fans; i++) {
		/* A bogus sensor drives the fan table to full speed. */
		int stopped = n->failed_fan == i + 1;
		int rpm = stopped ? 0 : bogus ? FAN_RPM_MAX : 7800 + 120 * ((n->index + i) % 7);
		char *id = br_xasprintf(SIM_R_CHASSIS "/Thermal#/Fans/%d", i);

		/* MemberId is the array index, as the Thermal schema requires and
		 * iDRAC9 6.x answers (DMTF Redfish Resource and Schema Guide, DSP2046:
		 * "MemberId ... the last segment of the JSON pointer"). */
		snprintf(member, sizeof(member), "%d", i);
		snprintf(name, sizeof(name), "System Board Fan%d%c", i / 2 + 1, 'A' + i % 2);
		json_array_append_new(fans, json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:s, s:o}",
						      "@odata.id", id, "MemberId", member, "Name", name,
						      "Reading", rpm, "ReadingUnits", "RPM",
						      "LowerThresholdCritical", 480, "MaxReadingRange",
						      FAN_RPM_MAX, "PhysicalContext", "SystemBoard", "Status",
						      sim_status(stopped ? "Critical" : "OK")));
		free(id);
	}
	for (int i = 0; i < sim_node_temps(n); i++) {
		int celsius, upper = i == 0 ? 47 : i == 1 ? 75 : i < 4 ? 100 : 95;
		char *id = br_xasprintf(SIM_R_CHASSIS "/Thermal#/Temperatures/%d", i);

		sim_temp_sensor(i, name, sizeof(name), &celsius);
		if (bogus && i == n->bogus_sensor)
			celsius = i % 2 ? 255 : -128;
		snprintf(member, sizeof(member), "%d", i);
		json_array_append_new(temps, json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:o}",
						       "@odata.id", id, "MemberId", member, "Name", name,
						       "ReadingCelsius", celsius, "UpperThresholdCritical",
						       upper, "UpperThresholdNonCritical", upper - 5,
						       "LowerThresholdCritical", i == 0 ? -7 : 3,
						       "SensorNumber", i + 1, "PhysicalContext",
						       i < 2   ? "SystemBoard"
						       : i < 4 ? "CPU"
							       : "GPU",
						       "Status", sim_status("OK")));
		free(id);
	}
	json_object_set_new(t, "Fans@odata.count", json_integer(sim_node_shape(n)->fans));
	json_object_set_new(t, "Fans", fans);
	json_object_set_new(t, "Temperatures@odata.count", json_integer(sim_node_temps(n)));
	json_object_set_new(t, "Temperatures", temps);
	return t;
}

json_t *sim_r_power(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	json_t *p = sim_res("#Power.v1_7_1.Power", "Power", "Power", SIM_R_CHASSIS "/Power");
	json_t *psus = json_array();
	char member[16], name[32];

	for (int i = 0; i < sim_node_shape(n)->psus; i++) {
		int failed = n->psus[i].failed;
		char *id = br_xasprintf(SIM_R_CHASSIS "/Power#/PowerSupplies/%d", i);

		snprintf(member, sizeof(member), "%d", i);
		snprintf(name, sizeof(name), "PS%d Status", i + 1);
		json_array_append_new(
		    psus,
		    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:o}", "@odata.id", id,
			      "MemberId", member, "Name", name, "Manufacturer", "DELL", "Model",
			      "PWR SPLY,2800W,RDNT,LTON", "SerialNumber", n->psus[i].serial,
			      "FirmwareVersion", "00.1D.7D", "PowerCapacityWatts", 2800, "PowerSupplyType",
			      "AC", "LineInputVoltage", failed ? 0 : 230, "LastPowerOutputWatts",
			      failed ? 0 : 1150, "Status", sim_status(failed ? "Critical" : "OK")));
		free(id);
	}
	json_object_set_new(p, "PowerSupplies@odata.count", json_integer(sim_node_shape(n)->psus));
	json_object_set_new(p, "PowerSupplies", psus);
	json_object_set_new(p, "PowerControl",
			    json_pack("[{s:s, s:s, s:s, s:i, s:i}]", "@odata.id",
				      SIM_R_CHASSIS "/Power#/PowerControl/0", "MemberId", "0", "Name",
				      "System Power Control", "PowerConsumedWatts", n->st.powered ? 5750 : 60,
				      "PowerCapacityWatts", 16800));
	return p;
}
