picks: 1=chiara 8=chiara 64=chiara 512=chiara_loglane:chiara_batch=8:chiara_lane=swing 4096=ring 
