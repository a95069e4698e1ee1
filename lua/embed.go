// Package lua embeds the bundled workload scripts.
package lua

import "embed"

// Scripts holds every bundled .lua file at its root.
//
//go:embed *.lua
var Scripts embed.FS

// Workload is a bundled script a user runs by name.
type Workload struct {
	Name        string // "oltp_read_write", the file without .lua
	Description string // one line, for --help
}

// Workloads lists the bundled scripts that run as tests, in --help order:
// sysbench's OLTP set, then the e-commerce and pgbench families. The
// *_common and sb_loader modules are libraries, not workloads.
var Workloads = []Workload{
	{"bulk_insert", "multi-row INSERTs, one table per thread"},
	{"oltp_delete", "DELETE by primary key"},
	{"oltp_insert", "single-row INSERT"},
	{"oltp_point_select", "SELECT by primary key"},
	{"oltp_read_only", "the OLTP transaction's reads: point and range SELECTs"},
	{"oltp_read_write", "the OLTP transaction: point and range SELECTs, UPDATEs, DELETE and INSERT"},
	{"oltp_update_index", "UPDATE of an indexed column by primary key"},
	{"oltp_update_non_index", "UPDATE of a non-indexed column by primary key"},
	{"oltp_write_only", "the OLTP transaction's writes: UPDATEs, DELETE and INSERT"},
	{"select_random_points", "SELECT with an IN() list of random index values"},
	{"select_random_ranges", "count over OR-ed random index ranges"},
	{"shop_category_filter", "e-commerce: the products of one category, cheapest first"},
	{"shop_insert", "e-commerce: a new user or order"},
	{"shop_join_aggregate", "e-commerce: one user's orders joined to their items and summed"},
	{"shop_mixed", "e-commerce: reads, indexed updates and order transactions mixed"},
	{"shop_order_trx", "e-commerce: place an order (read prices, insert order and items, decrement stock)"},
	{"shop_point_select", "e-commerce: a product or user by primary key"},
	{"shop_update_index", "e-commerce: an UPDATE located through an index"},
	{"tpcb_like", "pgbench's TPC-B-like transaction"},
	{"tpcb_select_only", "pgbench -S: SELECT an account balance"},
	{"tpcb_simple_update", "pgbench -N: the TPC-B-like transaction without the teller and branch updates"},
}
