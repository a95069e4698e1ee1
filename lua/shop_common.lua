-- shop_common.lua: the shared half of the e-commerce workloads (sysbench-go).
--
-- A small web shop: users, products (in ~100 categories), orders and their
-- order_items, sized like the "out of the box" PostgreSQL / MySQL / MariaDB
-- comparison this family reproduces (100,000 users, 50,000 products,
-- 250,000 orders, 1,000,000 order items at --scale=1). The shop_*.lua
-- scripts load this module with require("shop_common"), define
-- prepare_statements() and event(), and call the shop_* helpers below.
--
-- Invariant kept by every scenario: an order's total is the sum of
-- quantity * unit_price over its items (an order without items has total
-- 0). `check` verifies it.
--
-- Drivers: mysql (MySQL, MariaDB), pgsql and sqlite.

local loader = require("sb_loader")

if sysbench.cmdline.command == nil then
   -- The words of the reference's OLTP scripts.
   error("Command is required. Supported commands: prepare, prewarm, run, check, cleanup, help")
end

sysbench.cmdline.options = {
   scale =
      {"Multiplier of every table's row count: 1 means 100,000 users, " ..
          "50,000 products, 250,000 orders and 1,000,000 order items. " ..
          "run uses the sizes recorded by prepare", 1,
       sysbench.cmdline.ARG_DOUBLE},
   categories =
      {"Number of product categories (skewed: a few large ones, a long " ..
          "tail)", 100},
   point_select_table =
      {"Table read by the point select: products, users or both (one of " ..
          "the two at random per event)", "products"},
   category_limit =
      {"Rows returned by the category filter (ORDER BY price LIMIT n)", 20},
   insert_target =
      {"What the single insert adds: users (a new customer) or orders " ..
          "(an empty order: status 'new', total 0, no items)", "users"},
   update_target =
      {"What the indexed update changes: stock (UPDATE products SET " ..
          "stock = stock + ? WHERE id = ?) or status (UPDATE orders SET " ..
          "status = ? WHERE user_id = ?, through the user_id index)",
       "stock"},
   order_items_min =
      {"Fewest distinct products in an order placed by the order " ..
          "transaction", 1},
   order_items_max =
      {"Most distinct products in an order placed by the order " ..
          "transaction (at most 32)", 8},
   max_quantity =
      {"Largest quantity of one product in a new order", 3},
   read_pct =
      {"shop_mixed: percentage of events that are reads, spread evenly " ..
          "over point select, category filter and join aggregate", 60,
       sysbench.cmdline.ARG_DOUBLE},
   update_pct =
      {"shop_mixed: percentage of events that are indexed updates", 20,
       sysbench.cmdline.ARG_DOUBLE},
   trx_pct =
      {"shop_mixed: percentage of events that are order transactions", 20,
       sysbench.cmdline.ARG_DOUBLE},
   mysql_storage_engine =
      {"Storage engine for the tables when the database is MySQL", "innodb"},
   force_cleanup =
      {"cleanup: drop the shop tables even where no shop_meta table says " ..
          "this tool's prepare created them (by default cleanup refuses " ..
          "to drop such a table, which may be an application's users or " ..
          "orders)", false},
}

-- ---------------------------------------------------------------------------
-- Sizes and data shape
-- ---------------------------------------------------------------------------

local BASE_ROWS = {
   users = 100000, products = 50000, orders = 250000, order_items = 1000000
}

-- Row counts for a scale; every table has at least one row and every order
-- between 1 and 8 items.
function shop_sizes(scale, categories)
   if type(scale) ~= "number" or scale <= 0 then
      error("--scale must be a positive number, got " .. tostring(scale))
   end
   local n = {}
   for t, rows in pairs(BASE_ROWS) do
      n[t] = math.max(1, math.floor(rows * scale + 0.5))
   end
   n.order_items = math.min(math.max(n.order_items, n.orders), 8 * n.orders)
   n.categories = math.max(1, math.floor(categories or 100))
   return n
end

-- Load-time timestamps: users sign up and orders arrive in id order over
-- two years from 2024-01-01 (UTC), with jitter.
local T0 = 1704067200
local SPAN = 2 * 365 * 86400

local function timestamp(id, count)
   local t = T0 + math.floor((id - 1) * SPAN / count) +
      sysbench.rand.uniform(0, 3599)
   return os.date("!%Y-%m-%d %H:%M:%S", t)
end

-- A product's price in cents, a pure function of its id so that any thread
-- loading order items knows it without reading products. Half the catalogue
-- is under 50, a tenth above 1,000; most prices end in .99, .90 or .49.
function shop_price_cents(id)
   local h = ((id % 1000003) * 69069 + 12345) % 1000003
   local h2 = (h * 69069 + 1) % 1000003
   local tier = h % 10
   local units
   if tier < 5 then
      units = 1 + h2 % 50
   elseif tier < 8 then
      units = 50 + h2 % 150
   elseif tier < 9 then
      units = 200 + h2 % 800
   else
      units = 1000 + h2 % 2000
   end
   local c = h2 % 7
   local cents = ({99, 90, 49, 0, 95, 99, (h2 * 7) % 100})[c + 1]
   return units * 100 + cents
end

-- cents -> "123.45"
function shop_money(cents)
   return string.format("%d.%02d", math.floor(cents / 100), cents % 100)
end

-- "123.45" (or 123.45) -> 12345
function shop_cents(v)
   return math.floor(tonumber(v) * 100 + 0.5)
end

-- A skewed draw in [1, n]: P(value <= x) = sqrt(x/n), so low values (the
-- big categories, the best-selling products) come up far more often.
local function skewed(n)
   local u = sysbench.rand.uniform_double()
   return math.min(n, 1 + math.floor(n * u * u))
end

local ORDER_STATUSES = {"new", "paid", "shipped", "delivered", "cancelled",
                        "returned"}

-- Older orders are delivered (or cancelled, returned); the newest are
-- still being processed.
local function load_status(id, count)
   local age = (count - id) / count
   local r = sysbench.rand.uniform(1, 100)
   if age < 0.01 then
      return r <= 50 and "new" or "paid"
   elseif age < 0.03 then
      return r <= 50 and "paid" or "shipped"
   elseif r <= 92 then
      return "delivered"
   elseif r <= 97 then
      return "cancelled"
   end
   return "returned"
end

local function load_quantity()
   local r = sysbench.rand.uniform(1, 100)
   if r <= 70 then return 1 end
   if r <= 90 then return 2 end
   if r <= 97 then return 3 end
   return sysbench.rand.uniform(4, 5)
end

-- ---------------------------------------------------------------------------
-- Schema
-- ---------------------------------------------------------------------------

-- Drop order: children first.
local SHOP_TABLES = {"order_items", "orders", "products", "users"}
-- Create order.
local SHOP_CREATE = {"users", "products", "orders", "order_items"}

-- CREATE TABLE statements. MySQL and SQLite get the primary key inline (the
-- clustered index, the rowid); PostgreSQL gets it after the load, as pgbench
-- does. users, orders and order_items ids are assigned by the database for
-- rows added during a run (AUTO_INCREMENT, SERIAL, rowid); prepare gives
-- explicit ids so that threads load disjoint ranges.
local function table_ddl(name)
   local auto, plain, ts, tail
   if name == "mysql" then
      auto = "INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY"
      plain = "INTEGER NOT NULL PRIMARY KEY"
      ts = "DATETIME"
      tail = " /*! ENGINE = " .. sysbench.opt.mysql_storage_engine .. " */"
   elseif name == "pgsql" then
      auto, plain, ts, tail = "SERIAL NOT NULL", "INTEGER NOT NULL",
         "TIMESTAMP", ""
   else
      auto, plain, ts, tail = "INTEGER PRIMARY KEY", "INTEGER PRIMARY KEY",
         "TIMESTAMP", ""
   end
   return {
      users = "CREATE TABLE users (\n" ..
         "  id " .. auto .. ",\n" ..
         "  name VARCHAR(64) NOT NULL,\n" ..
         "  email VARCHAR(128) NOT NULL,\n" ..
         "  created " .. ts .. " NOT NULL\n)" .. tail,
      products = "CREATE TABLE products (\n" ..
         "  id " .. plain .. ",\n" ..
         "  category_id INTEGER NOT NULL,\n" ..
         "  name VARCHAR(100) NOT NULL,\n" ..
         "  price DECIMAL(10,2) NOT NULL,\n" ..
         "  stock INTEGER NOT NULL\n)" .. tail,
      orders = "CREATE TABLE orders (\n" ..
         "  id " .. auto .. ",\n" ..
         "  user_id INTEGER NOT NULL,\n" ..
         "  status VARCHAR(16) NOT NULL,\n" ..
         "  total DECIMAL(12,2) NOT NULL,\n" ..
         "  created " .. ts .. " NOT NULL\n)" .. tail,
      order_items = "CREATE TABLE order_items (\n" ..
         "  id " .. auto .. ",\n" ..
         "  order_id INTEGER NOT NULL,\n" ..
         "  product_id INTEGER NOT NULL,\n" ..
         "  quantity INTEGER NOT NULL,\n" ..
         "  unit_price DECIMAL(10,2) NOT NULL\n)" .. tail,
      -- the sizes prepare used, read by run; threads_done coordinates the
      -- parallel prepare; tables_created is the marker cleanup reads
      shop_meta = "CREATE TABLE shop_meta (\n" ..
         "  id INTEGER NOT NULL PRIMARY KEY,\n" ..
         "  users INTEGER NOT NULL,\n" ..
         "  products INTEGER NOT NULL,\n" ..
         "  orders INTEGER NOT NULL,\n" ..
         "  order_items INTEGER NOT NULL,\n" ..
         "  categories INTEGER NOT NULL,\n" ..
         "  threads_done INTEGER NOT NULL,\n" ..
         "  tables_created VARCHAR(255) NOT NULL\n)" .. tail,
   }
end

local SECONDARY_INDEXES = {
   {"products", "products_category_idx", "category_id"},
   {"orders", "orders_user_idx", "user_id"},
   {"order_items", "order_items_order_idx", "order_id"},
   {"order_items", "order_items_product_idx", "product_id"},
}

-- ---------------------------------------------------------------------------
-- Parallel prepare (sb_loader.lua; the state table is shop_meta)
-- ---------------------------------------------------------------------------

local function load_users(con, tid, first, last, n)
   loader.announce(tid, n.users, "users")
   local rand_string = sysbench.rand.string
   loader.load_slice(con, tid, "users",
                     "INSERT INTO users (id, name, email, created) VALUES",
                     first, last, function(id)
      return "(" .. id .. ",'" .. rand_string("@@@@@@@ @@@@@@@@@") .. "','u" ..
         id .. "@" .. rand_string("@@@@@@") .. ".example.com','" ..
         timestamp(id, n.users) .. "')"
   end)
end

local function load_products(con, tid, first, last, n)
   loader.announce(tid, n.products, "products")
   local rand_string = sysbench.rand.string
   local rand_uniform = sysbench.rand.uniform
   loader.load_slice(con, tid, "products",
                     "INSERT INTO products (id, category_id, name, price, " ..
                        "stock) VALUES",
                     first, last, function(id)
      return "(" .. id .. "," .. skewed(n.categories) .. ",'" ..
         rand_string("@@@@@@@@ @@@@@@@@@@ ###") .. "'," ..
         shop_money(shop_price_cents(id)) .. "," .. rand_uniform(0, 500) .. ")"
   end)
end

-- Orders and their items, generated together so that each order's total is
-- the sum of its items. The slice's item ids are fixed by its order ids, and
-- the per-order item count (1-8, mean order_items/orders = 4) is steered so
-- the slice ends exactly on its last item id.
local function load_orders(con, icon, tid, first, last, n)
   loader.announce(tid, n.orders, "orders")
   loader.announce(tid, n.order_items, "order_items")
   if last < first then return end
   local rand_uniform = sysbench.rand.uniform
   local ratio = n.order_items / n.orders
   local item_id = math.floor((first - 1) * n.order_items / n.orders) + 1
   local item_last = math.floor(last * n.order_items / n.orders)
   local p = loader.progress(tid, "orders' and 'order_items",
                          (last - first + 1) + (item_last - item_id + 1))
   local surplus = 0
   local picked = {}

   con:bulk_insert_init("INSERT INTO orders (id, user_id, status, total, " ..
                           "created) VALUES")
   icon:bulk_insert_init("INSERT INTO order_items (id, order_id, " ..
                            "product_id, quantity, unit_price) VALUES")
   for oid = first, last do
      local orders_after = last - oid
      local items_left = item_last - item_id + 1
      local k = surplus > 0 and rand_uniform(1, 6) or rand_uniform(1, 8)
      k = math.max(k, items_left - 8 * orders_after, 1)
      k = math.min(k, items_left - orders_after, 8)
      surplus = surplus + k - ratio

      local total = 0
      for j = 1, k do
         -- distinct products within an order when the catalogue allows
         local pid = skewed(n.products)
         for _ = 1, 3 do
            local dup = false
            for m = 1, j - 1 do
               if picked[m] == pid then dup = true end
            end
            if not dup then break end
            pid = skewed(n.products)
         end
         picked[j] = pid
         local q = load_quantity()
         local cents = shop_price_cents(pid)
         total = total + q * cents
         icon:bulk_insert_next("(" .. item_id .. "," .. oid .. "," .. pid ..
                                  "," .. q .. "," .. shop_money(cents) .. ")")
         item_id = item_id + 1
      end
      con:bulk_insert_next("(" .. oid .. "," .. rand_uniform(1, n.users) ..
                              ",'" .. load_status(oid, n.orders) .. "'," ..
                              shop_money(total) .. ",'" ..
                              timestamp(oid, n.orders) .. "')")
      p:add(k + 1)
   end
   con:bulk_insert_done()
   icon:bulk_insert_done()
end

-- Run by the last thread to finish loading.
local function finish_prepare(con, name)
   if name == "pgsql" then
      for _, t in ipairs(SHOP_TABLES) do
         print("Creating the primary key of '" .. t .. "'...")
         con:query("ALTER TABLE " .. t .. " ADD PRIMARY KEY (id)")
      end
   end
   for _, ix in ipairs(SECONDARY_INDEXES) do
      print("Creating index '" .. ix[2] .. "' on '" .. ix[1] .. "'...")
      con:query("CREATE INDEX " .. ix[2] .. " ON " .. ix[1] .. " (" ..
                   ix[3] .. ")")
   end
   if name == "pgsql" then
      -- explicit ids do not move the sequences behind SERIAL
      for _, t in ipairs({"users", "orders", "order_items"}) do
         con:query("SELECT setval(pg_get_serial_sequence('" .. t ..
                      "', 'id'), (SELECT MAX(id) FROM " .. t .. "))")
      end
      for _, t in ipairs(SHOP_TABLES) do
         con:query("ANALYZE " .. t)
      end
   elseif name == "mysql" then
      con:query("ANALYZE TABLE users, products, orders, order_items")
   else
      con:query("ANALYZE")
   end
end

-- Thread t loads the t-th slice of every table (explicit ids, multi-row
-- INSERTs); thread 0 creates the tables first; the last one to finish
-- builds the indexes.
function shop_cmd_prepare()
   local drv = sysbench.sql.driver()
   local name = drv:name()
   loader.check_driver(name, "shop")
   local nthreads = sysbench.opt.threads
   local tid = sysbench.tid % nthreads
   local n = shop_sizes(sysbench.opt.scale, sysbench.opt.categories)
   loader.expect({{"users", n.users}, {"products", n.products},
                  {"orders", n.orders}, {"order_items", n.order_items}})
   local con = drv:connect()

   if tid == 0 then
      loader.create_tables(con, name, table_ddl(name), "shop_meta",
                           string.format("INSERT INTO shop_meta VALUES " ..
                                            "(1, %d, %d, %d, %d, %d, 0, '')",
                                         n.users, n.products, n.orders,
                                         n.order_items, n.categories),
                           SHOP_CREATE)
   else
      loader.wait_for_schema(con, name, "shop_meta", "shop", SHOP_CREATE)
   end

   local first, last = loader.slice(n.users, tid, nthreads)
   load_users(con, tid, first, last, n)
   first, last = loader.slice(n.products, tid, nthreads)
   load_products(con, tid, first, last, n)
   local icon = drv:connect()
   first, last = loader.slice(n.orders, tid, nthreads)
   load_orders(con, icon, tid, first, last, n)
   icon:disconnect()

   if loader.count_thread_done(con, name, "shop_meta") == nthreads then
      finish_prepare(con, name)
   end
   con:disconnect()
end

-- Reads every table once so that a measured run starts warm. Parallel:
-- thread t reads table t, t+T, ...
function shop_cmd_prewarm()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   local nthreads = sysbench.opt.threads
   local reads = {
      users = "SELECT COUNT(*), SUM(LENGTH(name)), SUM(LENGTH(email)) FROM users",
      products = "SELECT COUNT(*), SUM(price), SUM(stock) FROM products",
      orders = "SELECT COUNT(*), SUM(total), SUM(user_id) FROM orders",
      order_items = "SELECT COUNT(*), SUM(quantity), SUM(product_id) " ..
         "FROM order_items",
   }
   for i = sysbench.tid % nthreads + 1, #SHOP_TABLES, nthreads do
      local t = SHOP_TABLES[i]
      print("Prewarming table '" .. t .. "'")
      con:query(reads[t])
   end
   con:disconnect()
end

-- Verifies the order invariant and the references between tables; fails
-- (exit 1) when something is off.
function shop_cmd_check()
   local con = sysbench.sql.driver():connect()
   local bad_totals = tonumber(con:query_row(
      "SELECT COUNT(*) FROM orders o LEFT JOIN " ..
         "(SELECT order_id, SUM(quantity * unit_price) AS s " ..
         "FROM order_items GROUP BY order_id) i ON i.order_id = o.id " ..
         "WHERE ABS(o.total - COALESCE(i.s, 0)) > 0.005"))
   local orphan_items = tonumber(con:query_row(
      "SELECT COUNT(*) FROM order_items oi LEFT JOIN orders o " ..
         "ON o.id = oi.order_id WHERE o.id IS NULL"))
   local bad_refs = tonumber(con:query_row(
      "SELECT (SELECT COUNT(*) FROM order_items oi LEFT JOIN products p " ..
         "ON p.id = oi.product_id WHERE p.id IS NULL) + " ..
         "(SELECT COUNT(*) FROM orders o LEFT JOIN users u " ..
         "ON u.id = o.user_id WHERE u.id IS NULL)"))
   for _, t in ipairs({"users", "products", "orders", "order_items"}) do
      print(string.format("%-12s %d rows", t,
                          tonumber(con:query_row("SELECT COUNT(*) FROM " .. t))))
   end
   print("orders whose total differs from the sum of their items: " ..
            bad_totals)
   print("order items of missing orders: " .. orphan_items)
   print("rows referring to a missing product or user: " .. bad_refs)
   con:disconnect()
   if bad_totals + orphan_items + bad_refs > 0 then
      error("the shop data is inconsistent")
   end
end

sysbench.cmdline.commands = {
   prepare = {shop_cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
   prewarm = {shop_cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND},
   warmup = {shop_cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND},
   check = {shop_cmd_check},
}

-- Drops the tables shop_meta says prepare created, then shop_meta; a
-- shop table that exists otherwise is refused (sb_loader.lua).
function cleanup()
   loader.cleanup("shop", "shop_meta", SHOP_TABLES)
end

-- ---------------------------------------------------------------------------
-- Run: per-thread connection and prepared statements
-- ---------------------------------------------------------------------------

local sqltype = sysbench.sql.type
local rand_default = sysbench.rand.default
local rand_uniform = sysbench.rand.uniform
local rand_double = sysbench.rand.uniform_double

-- sizes, read from shop_meta in thread_init
local n_users, n_products, n_categories = 1, 1, 1
local s = {} -- statements and their parameters, per thread
local items_min, items_max, max_qty = 1, 8, 3
local is_sqlite = false

-- prepare(sql, bind types...) -> statement, {params}
local function prep(sql, ...)
   local st = con:prepare(sql)
   local params = {}
   for i, t in ipairs({...}) do
      if type(t) == "table" then
         params[i] = st:bind_create(t[1], t[2])
      else
         params[i] = st:bind_create(t)
      end
   end
   if #params > 0 then
      st:bind_param(unpack(params))
   end
   s.all[#s.all + 1] = st
   return st, params
end

local function placeholders(count, tuple)
   local parts = {}
   for i = 1, count do
      parts[i] = tuple
   end
   return table.concat(parts, ", ")
end

function shop_prepare_point_select()
   local which = sysbench.opt.point_select_table
   if which ~= "products" and which ~= "users" and which ~= "both" then
      error("--point-select-table must be products, users or both")
   end
   s.ps_which = which
   s.product_by_id, s.product_by_id_p = prep(
      "SELECT id, category_id, name, price, stock FROM products WHERE id = ?",
      sqltype.INT)
   s.user_by_id, s.user_by_id_p = prep(
      "SELECT id, name, email, created FROM users WHERE id = ?", sqltype.INT)
end

function shop_prepare_category_filter()
   local limit = math.floor(sysbench.opt.category_limit)
   if limit < 1 then
      error("--category-limit must be at least 1")
   end
   s.category, s.category_p = prep(
      "SELECT id, name, price, stock FROM products WHERE category_id = ? " ..
         "ORDER BY price LIMIT " .. limit, sqltype.INT)
end

function shop_prepare_join_aggregate()
   s.join, s.join_p = prep(
      "SELECT COUNT(*), SUM(oi.quantity * oi.unit_price) FROM orders o " ..
         "JOIN order_items oi ON oi.order_id = o.id WHERE o.user_id = ?",
      sqltype.INT)
end

function shop_prepare_insert()
   local target = sysbench.opt.insert_target
   s.insert_target = target
   if target == "users" then
      s.insert, s.insert_p = prep(
         "INSERT INTO users (name, email, created) " ..
            "VALUES (?, ?, CURRENT_TIMESTAMP)",
         {sqltype.VARCHAR, 64}, {sqltype.VARCHAR, 128})
   elseif target == "orders" then
      s.insert, s.insert_p = prep(
         "INSERT INTO orders (user_id, status, total, created) " ..
            "VALUES (?, 'new', 0, CURRENT_TIMESTAMP)", sqltype.INT)
   else
      error("--insert-target must be users or orders")
   end
end

function shop_prepare_update_index()
   local target = sysbench.opt.update_target
   s.update_target = target
   if target == "stock" then
      s.update, s.update_p = prep(
         "UPDATE products SET stock = stock + ? WHERE id = ?",
         sqltype.INT, sqltype.INT)
   elseif target == "status" then
      s.update, s.update_p = prep(
         "UPDATE orders SET status = ? WHERE user_id = ?",
         {sqltype.VARCHAR, 16}, sqltype.INT)
   else
      error("--update-target must be stock or status")
   end
end

-- One price lookup and one multi-row item INSERT per order size, so the
-- event path only binds values.
function shop_prepare_order_trx()
   items_min = math.floor(sysbench.opt.order_items_min)
   items_max = math.floor(sysbench.opt.order_items_max)
   max_qty = math.floor(sysbench.opt.max_quantity)
   if items_min < 1 or items_max < items_min or items_max > 32 then
      error("need 1 <= --order-items-min <= --order-items-max <= 32")
   end
   if max_qty < 1 then
      error("--max-quantity must be at least 1")
   end
   items_max = math.min(items_max, n_products)
   items_min = math.min(items_min, items_max)

   s.begin = prep(is_sqlite and "BEGIN IMMEDIATE" or "BEGIN")
   s.commit = prep("COMMIT")
   s.prices, s.prices_p, s.items, s.items_p = {}, {}, {}, {}
   for k = 1, items_max do
      local types = {}
      for i = 1, k do
         types[i] = sqltype.INT
      end
      s.prices[k], s.prices_p[k] = prep(
         "SELECT id, price FROM products WHERE id IN (" ..
            placeholders(k, "?") .. ")", unpack(types))
      local itypes = {}
      for i = 1, k do
         itypes[#itypes + 1] = sqltype.INT    -- order_id
         itypes[#itypes + 1] = sqltype.INT    -- product_id
         itypes[#itypes + 1] = sqltype.INT    -- quantity
         itypes[#itypes + 1] = sqltype.DOUBLE -- unit_price
      end
      s.items[k], s.items_p[k] = prep(
         "INSERT INTO order_items (order_id, product_id, quantity, " ..
            "unit_price) VALUES " .. placeholders(k, "(?, ?, ?, ?)"),
         unpack(itypes))
   end

   local name = drv:name()
   local ins = "INSERT INTO orders (user_id, status, total, created) " ..
      "VALUES (?, 'new', ?, CURRENT_TIMESTAMP)"
   if name == "pgsql" then
      s.order, s.order_p = prep(ins .. " RETURNING id", sqltype.INT,
                                sqltype.DOUBLE)
   else
      s.order, s.order_p = prep(ins, sqltype.INT, sqltype.DOUBLE)
      s.order_id = prep(name == "mysql" and "SELECT LAST_INSERT_ID()" or
                           "SELECT last_insert_rowid()")
   end
   s.stock, s.stock_p = prep(
      "UPDATE products SET stock = stock - ? WHERE id = ?",
      sqltype.INT, sqltype.INT)
   s.picked = {}
   s.line_pid, s.line_qty, s.line_cents = {}, {}, {}
   s.price_of = {}
end

-- Sizes recorded by prepare (the loaded id ranges); --scale otherwise.
local function load_sizes()
   local n
   if loader.table_exists(con, drv:name(), "shop_meta") then
      local u, p, o, i, c = con:query_row(
         "SELECT users, products, orders, order_items, categories " ..
            "FROM shop_meta WHERE id = 1")
      if u ~= nil then
         n = {users = tonumber(u), products = tonumber(p),
              orders = tonumber(o), order_items = tonumber(i),
              categories = tonumber(c)}
      end
   end
   if n == nil then
      n = shop_sizes(sysbench.opt.scale, sysbench.opt.categories)
   end
   n_users, n_products, n_categories = n.users, n.products, n.categories
end

function thread_init()
   drv = sysbench.sql.driver()
   loader.check_driver(drv:name(), "shop")
   con = drv:connect()
   is_sqlite = drv:name() == "sqlite"
   load_sizes()
   s = {all = {}}
   -- supplied by the script that required this module
   prepare_statements()
end

function thread_done()
   loader.close_all(s.all)
   con:disconnect()
end

-- ---------------------------------------------------------------------------
-- Scenarios
-- ---------------------------------------------------------------------------

function shop_point_select()
   local users = s.ps_which == "users" or
      (s.ps_which == "both" and rand_uniform(0, 1) == 1)
   if users then
      s.user_by_id_p[1]:set(rand_default(1, n_users))
      s.user_by_id:execute()
   else
      s.product_by_id_p[1]:set(rand_default(1, n_products))
      s.product_by_id:execute()
   end
end

function shop_category_filter()
   s.category_p[1]:set(rand_default(1, n_categories))
   s.category:execute()
end

function shop_join_aggregate()
   s.join_p[1]:set(rand_default(1, n_users))
   s.join:execute()
end

local rand_string = sysbench.rand.string

function shop_insert()
   local p = s.insert_p
   if s.insert_target == "users" then
      p[1]:set_rand_str("@@@@@@@ @@@@@@@@@")
      p[2]:set(rand_string("@@@@@@@@##") .. "@" ..
                  rand_string("@@@@@@") .. ".example.com")
   else
      p[1]:set(rand_default(1, n_users))
   end
   s.insert:execute()
end

function shop_update_index()
   local p = s.update_p
   if s.update_target == "stock" then
      p[1]:set(rand_uniform(1, 20)) -- a restock
      p[2]:set(rand_default(1, n_products))
   else
      p[1]:set(ORDER_STATUSES[rand_uniform(1, #ORDER_STATUSES)])
      p[2]:set(rand_default(1, n_users))
   end
   s.update:execute()
end

-- BEGIN; read the prices of k products; INSERT the order with the total
-- computed from them; INSERT its k items; UPDATE each product's stock;
-- COMMIT. Products are distinct and visited in id order, so concurrent
-- orders lock them in the same order.
function shop_order_trx()
   local k = rand_uniform(items_min, items_max)
   local picked = s.picked
   for j = 1, k do
      local pid = rand_default(1, n_products)
      local tries = 0
      local dup = true
      while dup do
         dup = false
         for m = 1, j - 1 do
            if picked[m] == pid then dup = true break end
         end
         if dup then
            tries = tries + 1
            if tries < 8 then
               pid = rand_default(1, n_products)
            else
               -- the draw keeps colliding: take the next free id
               pid = pid % n_products + 1
            end
         end
      end
      picked[j] = pid
   end
   -- insertion sort of picked[1..k] (k is small)
   for j = 2, k do
      local v, m = picked[j], j - 1
      while m >= 1 and picked[m] > v do
         picked[m + 1] = picked[m]
         m = m - 1
      end
      picked[m + 1] = v
   end

   s.begin:execute()

   local pp = s.prices_p[k]
   for j = 1, k do
      pp[j]:set(picked[j])
   end
   local price_of = s.price_of
   for id in pairs(price_of) do
      price_of[id] = nil
   end
   local rs = s.prices[k]:execute()
   local row = rs:fetch_row()
   while row do
      price_of[tonumber(row[1])] = shop_cents(row[2])
      row = rs:fetch_row()
   end
   rs:free()

   local lines, total = 0, 0
   local line_pid, line_qty, line_cents = s.line_pid, s.line_qty, s.line_cents
   for j = 1, k do
      local cents = price_of[picked[j]]
      if cents ~= nil then
         lines = lines + 1
         local q = rand_uniform(1, max_qty)
         line_pid[lines], line_qty[lines], line_cents[lines] =
            picked[j], q, cents
         total = total + q * cents
      end
   end

   s.order_p[1]:set(rand_default(1, n_users))
   s.order_p[2]:set(total / 100)
   rs = s.order:execute()
   if s.order_id ~= nil then
      rs = s.order_id:execute()
   end
   row = rs:fetch_row()
   local order_id = tonumber(row[1])
   rs:free()

   if lines > 0 then
      local ip = s.items_p[lines]
      for j = 1, lines do
         local b = (j - 1) * 4
         ip[b + 1]:set(order_id)
         ip[b + 2]:set(line_pid[j])
         ip[b + 3]:set(line_qty[j])
         ip[b + 4]:set(line_cents[j] / 100)
      end
      s.items[lines]:execute()

      local sp = s.stock_p
      for j = 1, lines do
         sp[1]:set(line_qty[j])
         sp[2]:set(line_pid[j])
         s.stock:execute()
      end
   end

   s.commit:execute()
end

-- shop_mixed: one scenario per event, chosen by the percentages.
local read_cut, update_cut = 60, 80

function shop_prepare_mixed()
   local r, u, t = sysbench.opt.read_pct, sysbench.opt.update_pct,
      sysbench.opt.trx_pct
   if r < 0 or u < 0 or t < 0 or math.abs(r + u + t - 100) > 1e-9 then
      error(string.format("--read-pct + --update-pct + --trx-pct must add " ..
                             "up to 100 (got %g + %g + %g)", r, u, t))
   end
   read_cut, update_cut = r, r + u
   shop_prepare_point_select()
   shop_prepare_category_filter()
   shop_prepare_join_aggregate()
   shop_prepare_update_index()
   shop_prepare_order_trx()
end

function shop_mixed()
   local x = rand_double() * 100
   if x < read_cut then
      local which = rand_uniform(1, 3)
      if which == 1 then
         shop_point_select()
      elseif which == 2 then
         shop_category_filter()
      else
         shop_join_aggregate()
      end
   elseif x < update_cut then
      shop_update_index()
   else
      shop_order_trx()
   end
end

-- ---------------------------------------------------------------------------
-- Errors
-- ---------------------------------------------------------------------------

loader.restart_hook(function()
   loader.close_all(s.all)
   s = {all = {}}
   prepare_statements()
end, function() return con end)
