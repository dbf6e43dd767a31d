picks: 1=recexch 8=chiara_loglane 64=chiara_loglane:chiara_batch=8:chiara_lane=swing 512=chiara_loglane:chiara_batch=8:chiara_lane=swing 4096=chiara_loglane:chiara_batch=8:chiara_lane=swing 
