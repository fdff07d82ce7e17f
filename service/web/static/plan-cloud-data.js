/* Hidden cloud costs on the planning form (issue 16 via issue 17): data kept in cloud storage and sent out, paid
 * each month the plan rents or reserves. The API has no default prices: a size without its price is its 422. */
"use strict";

gpForm.fieldSection([
  { id: "cd_dataset_gb", path: "options.cloud_data.dataset_gb", kind: "number" },
  { id: "cd_checkpoints_gb", path: "options.cloud_data.checkpoints_gb", kind: "number" },
  { id: "cd_storage_price", path: "options.cloud_data.storage_usd_per_gb_month", kind: "number" },
  { id: "cd_egress_gb", path: "options.cloud_data.egress_gb_per_month", kind: "number" },
  { id: "cd_egress_price", path: "options.cloud_data.egress_usd_per_gb", kind: "number" },
  { id: "cd_currency", path: "options.cloud_data.currency", kind: "select" },
]);
